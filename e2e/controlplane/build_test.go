package controlplane

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEnsureBinariesUsesCacheWithoutBuilding: binaries already in the cache
// directory are returned as they are: with no go command on PATH, nothing
// could have been built.
func TestEnsureBinariesUsesCacheWithoutBuilding(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"kube-apiserver-" + KubernetesVersion, "etcd-" + EtcdVersion} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	}
	t.Setenv("PATH", "")

	bin, err := EnsureBinaries(t.Context(), dir, nil)

	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "kube-apiserver-v1.37.2"), bin.KubeAPIServer)
	assert.Equal(t, filepath.Join(dir, "etcd-v3.6.16"), bin.Etcd)
}

// TestMissingBinaryWithoutGoCommandIsAClearError: a binary to build and no go
// command: the error says what is needed, and nothing appears in the cache.
func TestMissingBinaryWithoutGoCommandIsAClearError(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", "")

	_, err := EnsureBinaries(t.Context(), dir, slog.New(slog.DiscardHandler))

	require.Error(t, err)
	assert.Contains(t, err.Error(), "controlplane: building etcd needs the go command on PATH")
	assert.False(t, isExecutable(filepath.Join(dir, "etcd-"+EtcdVersion)))
}

// TestFailedBuildLeavesNothingInCache: a build that fails reports go build's
// output, and leaves neither the binary nor a partial file behind.
func TestFailedBuildLeavesNothingInCache(t *testing.T) {
	target := filepath.Join(t.TempDir(), "etcd-test")
	broken := etcdBinary
	broken.pkg = "./no-such-package"

	err := build(t.Context(), broken, target)

	require.Error(t, err)
	assert.Contains(t, err.Error(), "controlplane: go build ./no-such-package")
	assert.NoFileExists(t, target)
	assert.NoFileExists(t, target+".partial")
}

// TestBuildModulesAreWrittenWithoutTheirSuffix: each embedded module becomes
// go.mod, go.sum and a Go file, and its go.mod requires the pinned version.
func TestBuildModulesAreWrittenWithoutTheirSuffix(t *testing.T) {
	for _, b := range []binary{kubeAPIServerBinary, etcdBinary} {
		dir := t.TempDir()

		require.NoError(t, writeBuildModule(b, dir))

		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		assert.Contains(t, names, "go.mod", b.name)
		assert.Contains(t, names, "go.sum", b.name)
		assert.Len(t, names, 3, "%s: %v", b.name, names)
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		require.NoError(t, err)
		assert.Contains(t, string(mod), " "+b.version+"\n", "%s's go.mod pins %s", b.name, b.version)
	}
}

// TestLockMakesSecondTakerWaitUntilRelease: while one holder has the build
// lock, a second taker is told it waits, and gets the lock once the first
// releases it; a taker whose context ends gives up with its error.
func TestLockMakesSecondTakerWaitUntilRelease(t *testing.T) {
	path := filepath.Join(t.TempDir(), "build.lock")
	unlock, err := lockFile(t.Context(), path, func() { t.Error("the first taker never waits") })
	require.NoError(t, err)

	waiting := make(chan struct{})
	got := make(chan error, 1)
	go func() {
		unlock2, err := lockFile(context.Background(), path, func() { close(waiting) })
		if err == nil {
			unlock2()
		}
		got <- err
	}()
	<-waiting
	ctx, cancel := context.WithTimeout(t.Context(), 2*lockPoll)
	_, errTimeout := lockFile(ctx, path, func() {})
	cancel()
	unlock()

	select {
	case err := <-got:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the second taker never got the lock")
	}
	require.Error(t, errTimeout)
	assert.ErrorIs(t, errTimeout, context.DeadlineExceeded)
}
