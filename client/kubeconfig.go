package client

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	yaml "go.yaml.in/yaml/v2"
)

// kubeconfig is the part of the kubeconfig file format this package reads and writes.
type kubeconfig struct {
	APIVersion     string         `yaml:"apiVersion,omitempty"`
	Kind           string         `yaml:"kind,omitempty"`
	CurrentContext string         `yaml:"current-context"`
	Clusters       []namedCluster `yaml:"clusters"`
	Contexts       []namedContext `yaml:"contexts"`
	Users          []namedUser    `yaml:"users"`
}

type namedCluster struct {
	Name    string `yaml:"name"`
	Cluster struct {
		Server                   string `yaml:"server"`
		CertificateAuthority     string `yaml:"certificate-authority,omitempty"`
		CertificateAuthorityData string `yaml:"certificate-authority-data,omitempty"`
		InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify,omitempty"`
		TLSServerName            string `yaml:"tls-server-name,omitempty"`
	} `yaml:"cluster"`
}

type namedContext struct {
	Name    string `yaml:"name"`
	Context struct {
		Cluster   string `yaml:"cluster"`
		User      string `yaml:"user"`
		Namespace string `yaml:"namespace"`
	} `yaml:"context"`
}

type namedUser struct {
	Name string `yaml:"name"`
	User struct {
		ClientCertificate     string `yaml:"client-certificate,omitempty"`
		ClientCertificateData string `yaml:"client-certificate-data,omitempty"`
		ClientKey             string `yaml:"client-key,omitempty"`
		ClientKeyData         string `yaml:"client-key-data,omitempty"`
		Token                 string `yaml:"token,omitempty"`
		TokenFile             string `yaml:"tokenFile,omitempty"`
		Username              string `yaml:"username,omitempty"`
		Exec                  any    `yaml:"exec,omitempty"`
		AuthProvider          any    `yaml:"auth-provider,omitempty"`
	} `yaml:"user"`
}

// LoadKubeconfig reads the kubeconfig file at path and returns the Config of its
// current context: the cluster's server, certificate-authority(-data),
// tls-server-name and insecure-skip-tls-verify, and the user's
// client-certificate/client-key(-data) and token (or tokenFile). Relative file paths
// are resolved against the kubeconfig's directory; inline -data fields win over files.
// The server is verified unless the cluster entry says insecure-skip-tls-verify: true.
// A missing context, cluster or user, or a user that needs an exec or auth-provider
// plugin, is a clear error.
//
// client-go: tools/clientcmd.BuildConfigFromFlags("", path).
func LoadKubeconfig(path string) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("client: reading kubeconfig: %w", err)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("client: kubeconfig %s is empty", path)
	}
	var kc kubeconfig
	if err := yaml.Unmarshal(raw, &kc); err != nil {
		return nil, fmt.Errorf("client: parsing kubeconfig %s: %w", path, err)
	}
	l := kubeconfigLoader{path: path, dir: filepath.Dir(path)}
	return l.config(&kc)
}

// kubeconfigLoader resolves one parsed kubeconfig into a Config.
type kubeconfigLoader struct {
	path string // the file, for error messages
	dir  string // relative paths in the file are relative to this directory
}

func (l kubeconfigLoader) config(kc *kubeconfig) (*Config, error) {
	if kc.CurrentContext == "" {
		return nil, fmt.Errorf("client: kubeconfig %s has no current-context", l.path)
	}
	ctx, ok := findNamed(kc.Contexts, kc.CurrentContext, func(c namedContext) string { return c.Name })
	if !ok {
		return nil, fmt.Errorf("client: kubeconfig %s: current-context %q is not among its contexts", l.path, kc.CurrentContext)
	}
	if ctx.Context.Cluster == "" {
		return nil, fmt.Errorf("client: kubeconfig %s: context %q names no cluster", l.path, ctx.Name)
	}
	cluster, ok := findNamed(kc.Clusters, ctx.Context.Cluster, func(c namedCluster) string { return c.Name })
	if !ok {
		return nil, fmt.Errorf("client: kubeconfig %s: context %q names cluster %q, which is not among its clusters", l.path, ctx.Name, ctx.Context.Cluster)
	}

	cfg := &Config{Server: cluster.Cluster.Server, Namespace: ctx.Context.Namespace}
	if cfg.Server == "" {
		return nil, fmt.Errorf("client: kubeconfig %s: cluster %q has no server", l.path, cluster.Name)
	}
	if _, err := cfg.serverURL(); err != nil {
		return nil, fmt.Errorf("client: kubeconfig %s: cluster %q: %w", l.path, cluster.Name, err)
	}
	var err error
	cfg.TLS.CAData, err = l.dataOrFile("cluster", cluster.Name, "certificate-authority", cluster.Cluster.CertificateAuthorityData, cluster.Cluster.CertificateAuthority)
	if err != nil {
		return nil, err
	}
	cfg.TLS.Insecure = cluster.Cluster.InsecureSkipTLSVerify
	cfg.TLS.ServerName = cluster.Cluster.TLSServerName

	if ctx.Context.User != "" { // a context without a user makes anonymous requests
		user, ok := findNamed(kc.Users, ctx.Context.User, func(u namedUser) string { return u.Name })
		if !ok {
			return nil, fmt.Errorf("client: kubeconfig %s: context %q names user %q, which is not among its users", l.path, ctx.Name, ctx.Context.User)
		}
		if err := l.applyUser(cfg, user); err != nil {
			return nil, err
		}
	}
	if _, err := cfg.TLS.tlsConfig(); err != nil {
		return nil, fmt.Errorf("client: kubeconfig %s: %w", l.path, err)
	}
	return cfg, nil
}

func (l kubeconfigLoader) applyUser(cfg *Config, user namedUser) error {
	u := user.User
	switch {
	case u.Exec != nil:
		return fmt.Errorf("client: kubeconfig %s: user %q authenticates with an exec plugin, which this client does not run; use a token or client certificate", l.path, user.Name)
	case u.AuthProvider != nil:
		return fmt.Errorf("client: kubeconfig %s: user %q uses an auth-provider, which this client does not support; use a token or client certificate", l.path, user.Name)
	case u.Username != "":
		return fmt.Errorf("client: kubeconfig %s: user %q uses basic auth, which this client does not support; use a token or client certificate", l.path, user.Name)
	}
	var err error
	if cfg.TLS.CertData, err = l.dataOrFile("user", user.Name, "client-certificate", u.ClientCertificateData, u.ClientCertificate); err != nil {
		return err
	}
	if cfg.TLS.KeyData, err = l.dataOrFile("user", user.Name, "client-key", u.ClientKeyData, u.ClientKey); err != nil {
		return err
	}
	cfg.BearerToken = u.Token
	if cfg.BearerToken == "" && u.TokenFile != "" {
		tok, err := os.ReadFile(l.resolve(u.TokenFile))
		if err != nil {
			return fmt.Errorf("client: kubeconfig %s: user %q tokenFile: %w", l.path, user.Name, err)
		}
		cfg.BearerToken = strings.TrimSpace(string(tok))
	}
	return nil
}

// dataOrFile returns the decoded base64 <field>-data value if set, else the contents
// of the file named by <field>, else nil.
func (l kubeconfigLoader) dataOrFile(entry, name, field, data, file string) ([]byte, error) {
	if data != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(data))
		if err != nil {
			return nil, fmt.Errorf("client: kubeconfig %s: %s %q %s-data is not valid base64: %w", l.path, entry, name, field, err)
		}
		return b, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(l.resolve(file))
	if err != nil {
		return nil, fmt.Errorf("client: kubeconfig %s: %s %q %s: %w", l.path, entry, name, field, err)
	}
	return b, nil
}

// resolve makes a path from the kubeconfig absolute, relative to the file's directory.
func (l kubeconfigLoader) resolve(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(l.dir, p)
}

func findNamed[T any](items []T, name string, nameOf func(T) string) (T, bool) {
	for _, it := range items {
		if nameOf(it) == name {
			return it, true
		}
	}
	var zero T
	return zero, false
}
