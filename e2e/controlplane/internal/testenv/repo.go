package testenv

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/e2e/controlplane"
)

// mainModule is the main module's go.mod module line.
const mainModule = "module github.com/informerlab/informerlab\n"

// RepoRoot returns the directory of the main module (the repository root),
// found by walking up from the working directory.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(data, []byte(mainModule)) {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, dir, parent, "testenv: no go.mod of the main module above the working directory")
		dir = parent
	}
}

// crdInstalled holds, per control plane, whether the Foo CRD is installed.
var crdInstalled struct {
	mu   sync.Mutex
	done map[*controlplane.ControlPlane]bool
}

// InstallFooCRD applies samplecontroller/testdata/foo-crd.yaml with kubectl,
// once per test binary, and waits until the CRD is Established: the server
// then serves Foos.
func InstallFooCRD(t testing.TB) {
	t.Helper()
	InstallFooCRDOn(t, ControlPlane(t))
}

// InstallFooCRDOn is InstallFooCRD on the control plane cp.
func InstallFooCRDOn(t testing.TB, cp *controlplane.ControlPlane) {
	t.Helper()
	crdInstalled.mu.Lock()
	defer crdInstalled.mu.Unlock()
	if crdInstalled.done[cp] {
		return
	}
	path := filepath.Join(RepoRoot(t), "samplecontroller", "testdata", "foo-crd.yaml")
	KubectlOn(t, cp, "apply", "-f", path)
	KubectlOn(t, cp, "wait", "--for=condition=Established", "--timeout=60s", "crd/foos.samplecontroller.k8s.io")
	if crdInstalled.done == nil {
		crdInstalled.done = map[*controlplane.ControlPlane]bool{}
	}
	crdInstalled.done[cp] = true
}
