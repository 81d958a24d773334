package controlplane

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/informerlab/informerlab/client"
)

// kubeconfigName names the kubeconfig's cluster, user and context.
const kubeconfigName = "informerlab-controlplane"

// writeKubeconfig writes a kubeconfig for server: the serving certificate as
// certificate-authority-data, the bearer token inline, namespace default. No
// exec plugin, no files referenced: the file alone is enough.
func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("controlplane: kubeconfig directory: %w", err)
	}
	cfg := &client.Config{Server: server, BearerToken: token, Namespace: "default", TLS: client.TLSConfig{CAData: caPEM}}
	if err := client.WriteKubeconfig(path, kubeconfigName, cfg); err != nil {
		return fmt.Errorf("controlplane: %w", err)
	}
	return nil
}
