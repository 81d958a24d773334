package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/informerlab/informerlab/e2e/controlplane"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

const usage = `Usage: go run ./cmd/controlplane [flags]

Runs a real Kubernetes API server on this machine: kube-apiserver %s and
etcd %s, built from source the first time (a few minutes; later starts take
seconds), on 127.0.0.1 with a self-signed certificate and a bearer token. It
prints a kubeconfig to use with kubectl, the tests and the demo, and runs until
Ctrl-C, which stops both processes.

There is no kube-controller-manager and no scheduler: Deployments get no Pods
and no status, deleted namespaces stay Terminating, nothing is garbage
collected. PodTemplates are served without the watch cache, so etcd
compaction (every --compaction-interval) makes old resourceVersions 410 Expired.

Flags:
`

// run parses args, starts the control plane, prints how to use it to stdout
// and waits for ctx to end; then it stops the control plane.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("controlplane", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		dir        = fs.String("dir", "", "keep etcd's data, certificates, logs and the kubeconfig in this directory (default: a temporary directory, removed on exit)")
		kubeconfig = fs.String("kubeconfig", "", "write the kubeconfig here (default: DIR/kubeconfig)")
		cacheDir   = fs.String("cache-dir", "", "where the built binaries are kept (default: "+defaultCacheDir()+")")
		compaction = fs.Duration("compaction-interval", controlplane.DefaultCompactionInterval, "kube-apiserver's --etcd-compaction-interval")
		buildOnly  = fs.Bool("build-only", false, "build the binaries into the cache if needed, print their paths and exit")
		verbose    = fs.Bool("v", false, "log debug lines too")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), usage, controlplane.KubernetesVersion, controlplane.EtcdVersion)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return fmt.Errorf("controlplane: unexpected arguments %q", fs.Args())
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	if *buildOnly {
		bin, err := controlplane.EnsureBinaries(ctx, *cacheDir, logger)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, bin.KubeAPIServer)
		fmt.Fprintln(stdout, bin.Etcd)
		return nil
	}

	if *kubeconfig != "" {
		abs, err := filepath.Abs(*kubeconfig)
		if err != nil {
			return fmt.Errorf("controlplane: --kubeconfig: %w", err)
		}
		*kubeconfig = abs
	}
	cp, err := controlplane.Start(ctx, controlplane.Options{
		Dir:                *dir,
		KubeconfigPath:     *kubeconfig,
		CacheDir:           *cacheDir,
		CompactionInterval: *compaction,
		Logger:             logger,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, `
kube-apiserver %s is serving %s (etcd %s at %s)
logs: %s

kubeconfig: %s
  export KUBECONFIG=%s
  kubectl get namespaces
the demo, narrating this server (from the repository root):
  go run ./cmd/demo --kubeconfig %s

Ctrl-C stops kube-apiserver and etcd.
`, controlplane.KubernetesVersion, cp.URL, controlplane.EtcdVersion, cp.EtcdURL, cp.Dir,
		cp.KubeconfigPath, cp.KubeconfigPath, cp.KubeconfigPath)

	<-ctx.Done()
	fmt.Fprintln(stdout, "stopping...")
	return cp.Stop()
}

// defaultCacheDir is the default of --cache-dir, for the help text.
func defaultCacheDir() string {
	dir, err := controlplane.DefaultCacheDir()
	if err != nil {
		return "none: " + err.Error()
	}
	return dir
}
