package controlplane

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStopEndsBothProcessesAndRemovesTheTemporaryDirectory: Stop leaves no
// process of the control plane running and removes the directory Start
// made; a second Stop does nothing.
func TestStopEndsBothProcessesAndRemovesTheTemporaryDirectory(t *testing.T) {
	cp, err := Start(t.Context(), Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	pids := []int{cp.etcd.cmd.Process.Pid, cp.apiserver.cmd.Process.Pid}

	require.NoError(t, cp.Stop())
	require.NoError(t, cp.Stop())

	for _, pid := range pids {
		assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "process %d is gone", pid)
	}
	assert.NoDirExists(t, cp.Dir)
}

// TestStartFailureStopsWhatItStartedAndSaysWhy: a kube-apiserver that will
// not start (an unknown flag) makes Start return an error carrying the end
// of its log, and leaves no process behind: etcd, already running, is
// stopped again. A directory given in Options is kept, logs included.
func TestStartFailureStopsWhatItStartedAndSaysWhy(t *testing.T) {
	dir := t.TempDir()

	_, err := Start(t.Context(), Options{Dir: dir, ExtraAPIServerFlags: []string{"--no-such-flag"},
		Logger: slog.New(slog.DiscardHandler)})

	require.Error(t, err)
	assert.Contains(t, err.Error(), "kube-apiserver exited before it was ready")
	assert.Contains(t, err.Error(), "no-such-flag")
	assert.Empty(t, processesMentioning(t, dir), "no process of this control plane is left")
	assert.FileExists(t, filepath.Join(dir, "etcd.log"))
}

// processesMentioning returns the PIDs of processes whose command line
// contains s (Linux: /proc).
func processesMentioning(t *testing.T, s string) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err, "this check reads /proc")
	var pids []string
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // not a process, or one that has just exited
		}
		if strings.Contains(string(cmdline), s) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}
