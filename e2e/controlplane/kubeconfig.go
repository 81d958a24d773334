package controlplane

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v2"
)

// kubeconfigName names the kubeconfig's cluster, user and context.
const kubeconfigName = "informerlab-controlplane"

// The kubeconfig fields written; the names follow client-go's
// tools/clientcmd/api/v1 types, which kubectl and client.LoadKubeconfig read.
type kubeconfig struct {
	APIVersion     string         `yaml:"apiVersion"`
	Kind           string         `yaml:"kind"`
	Clusters       []namedCluster `yaml:"clusters"`
	Users          []namedUser    `yaml:"users"`
	Contexts       []namedContext `yaml:"contexts"`
	CurrentContext string         `yaml:"current-context"`
}

type namedCluster struct {
	Name    string `yaml:"name"`
	Cluster struct {
		Server                   string `yaml:"server"`
		CertificateAuthorityData string `yaml:"certificate-authority-data"`
	} `yaml:"cluster"`
}

type namedUser struct {
	Name string `yaml:"name"`
	User struct {
		Token string `yaml:"token"`
	} `yaml:"user"`
}

type namedContext struct {
	Name    string `yaml:"name"`
	Context struct {
		Cluster   string `yaml:"cluster"`
		User      string `yaml:"user"`
		Namespace string `yaml:"namespace"`
	} `yaml:"context"`
}

// writeKubeconfig writes a kubeconfig for server: the serving certificate as
// certificate-authority-data, the bearer token inline, namespace default. No
// exec plugin, no files referenced: the file alone is enough. Mode 0600, since
// it holds the token.
func writeKubeconfig(path, server string, caPEM []byte, token string) error {
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: kubeconfigName}
	var c namedCluster
	c.Name = kubeconfigName
	c.Cluster.Server = server
	c.Cluster.CertificateAuthorityData = base64.StdEncoding.EncodeToString(caPEM)
	var u namedUser
	u.Name = kubeconfigName
	u.User.Token = token
	var x namedContext
	x.Name = kubeconfigName
	x.Context.Cluster = kubeconfigName
	x.Context.User = kubeconfigName
	x.Context.Namespace = "default"
	kc.Clusters = []namedCluster{c}
	kc.Users = []namedUser{u}
	kc.Contexts = []namedContext{x}

	data, err := yaml.Marshal(kc)
	if err != nil {
		return fmt.Errorf("controlplane: encode kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("controlplane: kubeconfig directory: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("controlplane: write kubeconfig: %w", err)
	}
	return nil
}
