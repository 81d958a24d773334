package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// Binaries are the paths of the two programs a control plane runs.
type Binaries struct {
	KubeAPIServer string
	Etcd          string
}

// DefaultCacheDir is where built binaries are kept when no other directory is
// given: informerlab/controlplane under os.UserCacheDir (~/.cache on Linux).
func DefaultCacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("controlplane: no cache directory: %w", err)
	}
	return filepath.Join(base, "informerlab", "controlplane"), nil
}

// EnsureBinaries returns kube-apiserver and etcd from cacheDir ("" means
// DefaultCacheDir), building each one from source first if it is not there.
//
// A build writes a throwaway module (the embedded go.mod and go.sum pin every
// dependency) to a temporary directory and runs go build there, so neither
// k8s.io/kubernetes nor etcd ever enters this module's go.mod. The first build
// of kube-apiserver takes minutes; every later call finds the binary and
// returns at once. A lock file in cacheDir makes a second process wait for a
// build in progress instead of starting its own. A binary appears in the cache
// only once it is complete (it is built under a temporary name and renamed).
//
// logger (nil means slog.Default) is told what is built, where, and how long it
// took. Cancelling ctx stops a build, or the wait for another process's build.
func EnsureBinaries(ctx context.Context, cacheDir string, logger *slog.Logger) (Binaries, error) {
	if logger == nil {
		logger = slog.Default()
	}
	if cacheDir == "" {
		dir, err := DefaultCacheDir()
		if err != nil {
			return Binaries{}, err
		}
		cacheDir = dir
	}
	etcd, err := ensureBinary(ctx, cacheDir, etcdBinary, logger)
	if err != nil {
		return Binaries{}, err
	}
	kas, err := ensureBinary(ctx, cacheDir, kubeAPIServerBinary, logger)
	if err != nil {
		return Binaries{}, err
	}
	return Binaries{KubeAPIServer: kas, Etcd: etcd}, nil
}

// ensureBinary returns the cached binary b, building it under the cache lock
// if it is missing.
func ensureBinary(ctx context.Context, cacheDir string, b binary, logger *slog.Logger) (string, error) {
	target := filepath.Join(cacheDir, b.name+"-"+b.version)
	if isExecutable(target) {
		logger.Debug("controlplane: using cached binary", "path", target)
		return target, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("controlplane: cache directory: %w", err)
	}
	unlock, err := lockFile(ctx, filepath.Join(cacheDir, "build.lock"), func() {
		logger.Info("controlplane: another process is building in the cache directory; waiting for it",
			"cache", cacheDir)
	})
	if err != nil {
		return "", err
	}
	defer unlock()
	if isExecutable(target) { // built by the process we waited for
		return target, nil
	}

	logger.Info(fmt.Sprintf("controlplane: building %s %s from source (first time only; %s)", b.name, b.version, b.about),
		"into", target)
	start := time.Now()
	if err := build(ctx, b, target); err != nil {
		return "", err
	}
	logger.Info(fmt.Sprintf("controlplane: built %s %s", b.name, b.version),
		"took", time.Since(start).Round(time.Second), "path", target)
	return target, nil
}

// build writes b's module to a temporary directory and runs go build there,
// writing the binary to target.
func build(ctx context.Context, b binary, target string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("controlplane: building %s needs the go command on PATH: %w", b.name, err)
	}
	dir, err := os.MkdirTemp("", "informerlab-build-"+b.name+"-")
	if err != nil {
		return fmt.Errorf("controlplane: build directory: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := writeBuildModule(b, dir); err != nil {
		return err
	}

	partial := target + ".partial"
	cmd := exec.CommandContext(ctx, goTool, "build", "-mod=readonly", "-o", partial, "-ldflags", b.ldflags, b.pkg)
	cmd.Dir = dir
	// GOWORK=off: a go.work around the temporary directory must not change
	// what is built. GOFLAGS from the environment are kept (-mod there would
	// be overridden by the flag above).
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		_ = os.Remove(partial)
		if ctx.Err() != nil {
			return fmt.Errorf("controlplane: build of %s cancelled: %w", b.name, ctx.Err())
		}
		return fmt.Errorf("controlplane: go build %s: %w\n%s", b.pkg, err, tail(out.String(), 40))
	}
	if err := os.Rename(partial, target); err != nil {
		return fmt.Errorf("controlplane: install %s: %w", b.name, err)
	}
	return nil
}

// writeBuildModule copies b's embedded module files into dir, dropping their
// .txt suffix: go.mod, go.sum and one Go file.
func writeBuildModule(b binary, dir string) error {
	entries, err := fs.ReadDir(buildModules, b.dir)
	if err != nil {
		return fmt.Errorf("controlplane: embedded build module %s: %w", b.dir, err)
	}
	for _, e := range entries {
		data, err := fs.ReadFile(buildModules, path.Join(b.dir, e.Name()))
		if err != nil {
			return fmt.Errorf("controlplane: embedded build module %s: %w", b.dir, err)
		}
		name := strings.TrimSuffix(e.Name(), ".txt")
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("controlplane: write build module: %w", err)
		}
	}
	return nil
}

// isExecutable reports whether path is a regular file someone may execute.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
