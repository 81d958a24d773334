package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane"
)

// TestHelpSaysWhatRunsAndWhatDoesNot: --help describes the command,
// including what a bare control plane lacks, and every flag.
func TestHelpSaysWhatRunsAndWhatDoesNot(t *testing.T) {
	var stdout, stderr bytes.Buffer

	err := run(t.Context(), []string{"--help"}, &stdout, &stderr)

	assert.ErrorIs(t, err, flag.ErrHelp)
	for _, want := range []string{"kube-apiserver v1.37.2", "etcd v3.6.16", "no kube-controller-manager",
		"-dir", "-kubeconfig", "-cache-dir", "-compaction-interval", "-build-only"} {
		assert.Contains(t, stderr.String(), want)
	}
}

// TestBadArgumentsAreErrors: an unknown flag or a stray argument is an
// error, before anything is built or started.
func TestBadArgumentsAreErrors(t *testing.T) {
	for _, args := range [][]string{{"--no-such-flag"}, {"extra"}} {
		var stdout, stderr bytes.Buffer

		err := run(t.Context(), args, &stdout, &stderr)

		assert.Error(t, err, "%v", args)
		assert.Empty(t, stdout.String(), "%v", args)
	}
}

// TestBuildOnlyPrintsTheCachedBinaries: --build-only finds binaries already
// in the cache directory and prints their paths.
func TestBuildOnlyPrintsTheCachedBinaries(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"kube-apiserver-" + controlplane.KubernetesVersion, "etcd-" + controlplane.EtcdVersion} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), 0o755))
	}
	var stdout, stderr bytes.Buffer

	require.NoError(t, run(t.Context(), []string{"--build-only", "--cache-dir", dir}, &stdout, &stderr))

	assert.Equal(t, filepath.Join(dir, "kube-apiserver-v1.37.2")+"\n"+filepath.Join(dir, "etcd-v3.6.16")+"\n", stdout.String())
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader, which
// signals changed (without blocking) after every write.
type syncBuffer struct {
	mu      sync.Mutex // guards buf
	buf     bytes.Buffer
	changed chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{}, 1)} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	n, err := b.buf.Write(p)
	b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestRunPrintsKubeconfigAndStopsOnCancel: the command starts the control
// plane, prints the kubeconfig path, the export line and the demo command,
// serves requests through that kubeconfig, and stops cleanly when its
// context ends (what Ctrl-C does).
func TestRunPrintsKubeconfigAndStopsOnCancel(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	stdout, stderr := newSyncBuffer(), newSyncBuffer()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--kubeconfig", kubeconfig}, stdout, stderr) }()
	ready := time.NewTimer(2 * time.Minute)
	defer ready.Stop()
	for !strings.Contains(stdout.String(), "Ctrl-C stops") {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, stderr.String())
		case <-ready.C:
			t.Fatalf("no banner after 2 minutes; stderr: %s", stderr.String())
		case <-stdout.changed:
		}
	}
	cfg, err := client.LoadKubeconfig(kubeconfig)
	require.NoError(t, err)
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	_, listErr := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).List(t.Context(), metav1.ListOptions{})

	cancel()
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(time.Minute):
		t.Fatal("run did not return within a minute of the cancel")
	}

	assert.NoError(t, listErr)
	assert.NoError(t, runErr)
	out := stdout.String()
	assert.Contains(t, out, "kubeconfig: "+kubeconfig)
	assert.Contains(t, out, "export KUBECONFIG="+kubeconfig)
	assert.Contains(t, out, "go run ./cmd/demo --kubeconfig "+kubeconfig)
	assert.Contains(t, out, "stopping...")
	assert.Contains(t, stderr.String(), "controlplane: stopped kube-apiserver and etcd")
}
