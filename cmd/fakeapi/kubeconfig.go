package main

import (
	"fmt"

	"github.com/informerlab/informerlab/client"
)

// kubeconfigName names the cluster, user and context in the kubeconfig.
const kubeconfigName = "fakeapi"

// writeKubeconfig writes a kubeconfig whose current context points at
// server, with the server's certificate (PEM) as its CA if caPEM is not
// empty, the bearer token if one is set, and namespace "default". The file
// is readable by its owner only (0600), also when it existed before with
// wider permissions (client.WriteKubeconfig narrows them first).
func writeKubeconfig(path, server, token string, caPEM []byte) error {
	cfg := &client.Config{Server: server, BearerToken: token, Namespace: "default", TLS: client.TLSConfig{CAData: caPEM}}
	if err := client.WriteKubeconfig(path, kubeconfigName, cfg); err != nil {
		return fmt.Errorf("fakeapi: %w", err)
	}
	return nil
}
