package client

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"

	yaml "go.yaml.in/yaml/v2"
)

// WriteKubeconfig writes a kubeconfig file whose one cluster, user and context,
// all called name, say what cfg says: the server, the certificate material
// inline (-data fields), tls-server-name, insecure-skip-tls-verify, the bearer
// token and the namespace. Its current context is that one, so kubectl, client-go
// and [LoadKubeconfig] read back cfg. The file is readable by its owner only
// (0600: it may hold a token), also when it existed with wider permissions;
// its directory must exist (a missing one is an error, so a
// mistyped path is reported rather than created).
//
// client-go: tools/clientcmd.WriteToFile.
func WriteKubeconfig(path, name string, cfg *Config) error {
	if _, err := cfg.serverURL(); err != nil {
		return err
	}
	if name == "" {
		return fmt.Errorf("client: write kubeconfig: the cluster, user and context need a name")
	}
	b64 := base64.StdEncoding.EncodeToString
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: name}
	var c namedCluster
	c.Name = name
	c.Cluster.Server = cfg.Server
	c.Cluster.TLSServerName = cfg.TLS.ServerName
	c.Cluster.InsecureSkipTLSVerify = cfg.TLS.Insecure
	if len(cfg.TLS.CAData) > 0 {
		c.Cluster.CertificateAuthorityData = b64(cfg.TLS.CAData)
	}
	var u namedUser
	u.Name = name
	u.User.Token = cfg.BearerToken
	if len(cfg.TLS.CertData) > 0 {
		u.User.ClientCertificateData = b64(cfg.TLS.CertData)
	}
	if len(cfg.TLS.KeyData) > 0 {
		u.User.ClientKeyData = b64(cfg.TLS.KeyData)
	}
	var x namedContext
	x.Name = name
	x.Context.Cluster = name
	x.Context.User = name
	x.Context.Namespace = cfg.Namespace
	kc.Clusters = []namedCluster{c}
	kc.Users = []namedUser{u}
	kc.Contexts = []namedContext{x}

	data, err := yaml.Marshal(kc)
	if err != nil {
		return fmt.Errorf("client: encode kubeconfig: %w", err)
	}
	// os.WriteFile's mode applies only to a file it creates: an existing
	// file's wider permissions are narrowed first, before it holds a secret.
	if err := os.Chmod(path, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("client: write kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("client: write kubeconfig: %w", err)
	}
	return nil
}
