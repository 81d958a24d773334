package main

import (
	"encoding/base64"
	"fmt"
	"os"

	"go.yaml.in/yaml/v2"
)

// The kubeconfig fields kubectl and client.LoadKubeconfig read; the names
// follow client-go's tools/clientcmd/api/v1 types.
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
		CertificateAuthorityData string `yaml:"certificate-authority-data,omitempty"`
	} `yaml:"cluster"`
}

type namedUser struct {
	Name string `yaml:"name"`
	User struct {
		Token string `yaml:"token,omitempty"`
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

// kubeconfigName names the cluster, user and context in the kubeconfig.
const kubeconfigName = "fakeapi"

// writeKubeconfig writes a kubeconfig whose current context points at
// server, with the server's certificate (PEM) as its CA if caPEM is not
// empty, the bearer token if one is set, and namespace "default". The file
// is created with mode 0600, as it may hold the token.
func writeKubeconfig(path, server, token string, caPEM []byte) error {
	kc := kubeconfig{APIVersion: "v1", Kind: "Config", CurrentContext: kubeconfigName}
	var c namedCluster
	c.Name = kubeconfigName
	c.Cluster.Server = server
	if len(caPEM) > 0 {
		c.Cluster.CertificateAuthorityData = base64.StdEncoding.EncodeToString(caPEM)
	}
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
		return fmt.Errorf("fakeapi: encode kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("fakeapi: write kubeconfig: %w", err)
	}
	return nil
}
