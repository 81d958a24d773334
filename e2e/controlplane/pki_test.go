package controlplane

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/client"
)

// TestServingCertificateIsValidForLoopbackOnly: the certificate verifies,
// against itself as the CA, for 127.0.0.1 and localhost and for nothing else,
// and matches its key.
func TestServingCertificateIsValidForLoopbackOnly(t *testing.T) {
	certPEM, keyPEM, err := selfSignedServingCert()
	require.NoError(t, err)
	_, err = tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err, "certificate and key belong together")
	block, _ := pem.Decode(certPEM)
	require.NotNil(t, block)
	cert, err := x509.ParseCertificate(block.Bytes)
	require.NoError(t, err)
	roots := x509.NewCertPool()
	roots.AddCert(cert)

	for name, ok := range map[string]bool{"127.0.0.1": true, "localhost": true, "example.com": false, "10.0.0.1": false} {
		_, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots})
		assert.Equal(t, ok, err == nil, "%s: %v", name, err)
	}
}

// TestPKIFilesAndKubeconfig: writePKI writes the files kube-apiserver's flags
// name, the secrets readable by their owner only; the kubeconfig carries the
// CA and the token inline, and client.LoadKubeconfig reads them back.
func TestPKIFilesAndKubeconfig(t *testing.T) {
	dir := t.TempDir()
	p, err := writePKI(filepath.Join(dir, "pki"))
	require.NoError(t, err)
	kc := filepath.Join(dir, "kubeconfig")

	require.NoError(t, writeKubeconfig(kc, "https://127.0.0.1:6443", p.caPEM, p.token))

	for path, mode := range map[string]os.FileMode{
		p.servingCert: 0o644, p.servingKey: 0o600, p.saKey: 0o600, p.saPub: 0o644, p.tokenFile: 0o600, kc: 0o600,
	} {
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, mode, fi.Mode().Perm(), path)
	}
	csv, err := os.ReadFile(p.tokenFile)
	require.NoError(t, err)
	assert.Equal(t, p.token+","+adminUser+","+adminUser+",\"system:masters\"\n", string(csv))
	cfg, err := client.LoadKubeconfig(kc)
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:6443", cfg.Server)
	assert.Equal(t, p.token, cfg.BearerToken)
	assert.Equal(t, p.caPEM, cfg.TLS.CAData)
	assert.False(t, cfg.TLS.Insecure)
	assert.Equal(t, "default", cfg.Namespace)
	assert.Len(t, p.token, 64)
}
