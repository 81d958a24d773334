package client_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/client"
)

// What WriteKubeconfig writes, LoadKubeconfig reads back: server, CA, client
// certificate and key, token and namespace, in a file only its owner can read.
// Diagram: step 1 (how a client finds the API server). client-go: clientcmd.WriteToFile.
func TestWrittenKubeconfigLoadsBackTheSameConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	ca := newTestCA(t, "kubeconfig-ca")
	certPEM, keyPEM := ca.clientCert(t, "alice")
	want := &client.Config{
		Server:      "https://127.0.0.1:6443",
		BearerToken: "secret",
		Namespace:   "default",
		TLS:         client.TLSConfig{CAData: ca.certPEM, CertData: certPEM, KeyData: keyPEM, ServerName: "localhost"},
	}

	require.NoError(t, client.WriteKubeconfig(path, "informerlab", want))

	got, err := client.LoadKubeconfig(path)
	require.NoError(t, err)
	assert.Equal(t, want.Server, got.Server)
	assert.Equal(t, want.BearerToken, got.BearerToken)
	assert.Equal(t, want.Namespace, got.Namespace)
	assert.Equal(t, want.TLS, got.TLS)
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
}

// A config without a usable server, a kubeconfig without a name, or a path
// whose directory does not exist is refused, and nothing is written.
// Diagram: none.
func TestWriteKubeconfigRefusesWhatCannotBeRead(t *testing.T) {
	dir := t.TempDir()

	assert.ErrorContains(t, client.WriteKubeconfig(filepath.Join(dir, "a"), "x", &client.Config{Server: "127.0.0.1:6443"}), "scheme")
	assert.ErrorContains(t, client.WriteKubeconfig(filepath.Join(dir, "b"), "", &client.Config{Server: "https://127.0.0.1"}), "name")
	assert.ErrorContains(t, client.WriteKubeconfig(filepath.Join(dir, "missing", "c"), "x", &client.Config{Server: "https://127.0.0.1"}), "no such file or directory")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// A kubeconfig written over an existing world-readable file ends up readable
// by its owner only: os.WriteFile's mode applies only to files it creates, so
// the permissions are narrowed before the token is written.
// Diagram: none. client-go: clientcmd.WriteToFile (which writes with 0600 and leaves an existing file's mode).
func TestWriteKubeconfigNarrowsAnExistingFilesPermissions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))

	require.NoError(t, client.WriteKubeconfig(path, "c", &client.Config{Server: "https://127.0.0.1:6443", BearerToken: "tok"}))

	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}
