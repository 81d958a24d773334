package client_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// tlsAPI starts an https server that answers any list with an empty ConfigMapList and
// reports each request's Authorization header and client certificate name.
type tlsAPI struct {
	srv   *httptest.Server
	auths chan string // Authorization header, then the client cert CN ("" if none)
}

func newTLSAPI(t *testing.T, clientCA *testCA) *tlsAPI {
	t.Helper()
	api := &tlsAPI{auths: make(chan string, 16)}
	api.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cn := ""
		if len(r.TLS.PeerCertificates) > 0 {
			cn = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		api.auths <- r.Header.Get("Authorization")
		api.auths <- cn
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`))
	}))
	if clientCA != nil {
		pool := x509.NewCertPool()
		pool.AddCert(clientCA.cert)
		api.srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	}
	api.srv.StartTLS()
	t.Cleanup(api.srv.Close)
	return api
}

// caPEM is the server's self-signed certificate, which is its own CA.
func (api *tlsAPI) caPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: api.srv.Certificate().Raw})
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// writeKubeconfig writes a kubeconfig into a fresh directory and returns its path.
// cluster and user are the YAML bodies of the "cluster:" and "user:" maps, indented
// by four spaces.
func writeKubeconfig(t *testing.T, dir, cluster, user string) string {
	t.Helper()
	kc := `apiVersion: v1
kind: Config
current-context: test
preferences: {}
contexts:
- name: other
  context: {cluster: nowhere, user: nobody}
- name: test
  context:
    cluster: test-cluster
    user: test-user
    namespace: team-a
clusters:
- name: test-cluster
  cluster:
` + cluster + `
users:
- name: test-user
  user:
` + user + "\n"
	p := filepath.Join(dir, "config")
	require.NoError(t, os.WriteFile(p, []byte(kc), 0o600))
	return p
}

// listVia loads the kubeconfig and lists configmaps with it: typed, so that
// the list is the only request (the scheme says what configmaps holds).
func listVia(t *testing.T, path string) error {
	t.Helper()
	cfg, err := client.LoadKubeconfig(path)
	if err != nil {
		return err
	}
	c, err := client.New(cfg, newScheme())
	if err != nil {
		return err
	}
	_, err = c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	return err
}

// TestKubeconfigVerifiesTheServerWithItsCA checks that the cluster's CA (inline or as a
// file relative to the kubeconfig) verifies the server, that the token is sent as a
// Bearer token, and that the context's namespace is reported.
// Diagram: step 1. client-go: tools/clientcmd.BuildConfigFromFlags.
func TestKubeconfigVerifiesTheServerWithItsCA(t *testing.T) {
	api := newTLSAPI(t, nil)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "pki"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pki", "ca.crt"), api.caPEM(), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("file-token\n"), 0o600))

	inline := writeKubeconfig(t, t.TempDir(),
		"    server: "+api.srv.URL+"\n    certificate-authority-data: "+b64(api.caPEM()),
		"    token: inline-token")
	fromFiles := writeKubeconfig(t, dir,
		"    server: "+api.srv.URL+"\n    certificate-authority: pki/ca.crt",
		"    tokenFile: token")

	inlineErr := listVia(t, inline)
	inlineAuth, _ := <-api.auths, <-api.auths
	filesErr := listVia(t, fromFiles)
	filesAuth, _ := <-api.auths, <-api.auths
	cfg, err := client.LoadKubeconfig(inline)
	require.NoError(t, err)

	assert.NoError(t, inlineErr)
	assert.Equal(t, "Bearer inline-token", inlineAuth)
	assert.NoError(t, filesErr)
	assert.Equal(t, "Bearer file-token", filesAuth)
	assert.Equal(t, "team-a", cfg.Namespace)
	assert.False(t, cfg.TLS.Insecure)
}

// TestKubeconfigWithTheWrongCAFailsTLS checks that verification is real: another CA,
// or no CA at all (system roots), is a certificate error, never a silent skip.
// Diagram: step 1. client-go: transport.TLSConfigFor.
func TestKubeconfigWithTheWrongCAFailsTLS(t *testing.T) {
	api := newTLSAPI(t, nil)
	other := newTestCA(t, "someone else")
	wrongCA := writeKubeconfig(t, t.TempDir(),
		"    server: "+api.srv.URL+"\n    certificate-authority-data: "+b64(other.certPEM), "    token: x")
	noCA := writeKubeconfig(t, t.TempDir(), "    server: "+api.srv.URL, "    token: x")

	wrongErr := listVia(t, wrongCA)
	noCAErr := listVia(t, noCA)

	var verr *tls.CertificateVerificationError
	assert.ErrorAs(t, wrongErr, &verr)
	assert.ErrorAs(t, noCAErr, &verr)
	assert.Empty(t, api.auths, "no request got through")
}

// TestInsecureSkipVerifyOnlyWhenTheKubeconfigSaysSo checks that
// insecure-skip-tls-verify: true is honoured, that it is never assumed, and that it
// cannot be combined with a CA.
// Diagram: step 1. client-go: rest.Config.Insecure.
func TestInsecureSkipVerifyOnlyWhenTheKubeconfigSaysSo(t *testing.T) {
	api := newTLSAPI(t, nil)
	insecure := writeKubeconfig(t, t.TempDir(), "    server: "+api.srv.URL+"\n    insecure-skip-tls-verify: true", "    token: x")
	explicitFalse := writeKubeconfig(t, t.TempDir(), "    server: "+api.srv.URL+"\n    insecure-skip-tls-verify: false", "    token: x")
	both := writeKubeconfig(t, t.TempDir(),
		"    server: "+api.srv.URL+"\n    insecure-skip-tls-verify: true\n    certificate-authority-data: "+b64(api.caPEM()), "    token: x")

	insecureErr := listVia(t, insecure)
	falseErr := listVia(t, explicitFalse)
	_, bothErr := client.LoadKubeconfig(both)

	assert.NoError(t, insecureErr)
	var verr *tls.CertificateVerificationError
	assert.ErrorAs(t, falseErr, &verr)
	assert.ErrorContains(t, bothErr, "contradictory")
}

// TestKubeconfigClientCertificateAuthenticates checks client certificate auth against
// a server that requires one: inline -data fields and files relative to the kubeconfig.
// Diagram: step 1. client-go: rest.TLSClientConfig.CertData/KeyData.
func TestKubeconfigClientCertificateAuthenticates(t *testing.T) {
	users := newTestCA(t, "users")
	api := newTLSAPI(t, users)
	certPEM, keyPEM := users.clientCert(t, "alice")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alice.crt"), certPEM, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alice.key"), keyPEM, 0o600))
	cluster := "    server: " + api.srv.URL + "\n    certificate-authority-data: " + b64(api.caPEM())
	inline := writeKubeconfig(t, t.TempDir(), cluster,
		"    client-certificate-data: "+b64(certPEM)+"\n    client-key-data: "+b64(keyPEM))
	files := writeKubeconfig(t, dir, cluster, "    client-certificate: alice.crt\n    client-key: alice.key")
	noCert := writeKubeconfig(t, t.TempDir(), cluster, "    token: x")

	inlineErr := listVia(t, inline)
	inlineAuth, inlineCN := <-api.auths, <-api.auths
	filesErr := listVia(t, files)
	_, filesCN := <-api.auths, <-api.auths
	noCertErr := listVia(t, noCert)

	assert.NoError(t, inlineErr)
	assert.Empty(t, inlineAuth)
	assert.Equal(t, "alice", inlineCN)
	assert.NoError(t, filesErr)
	assert.Equal(t, "alice", filesCN)
	assert.Error(t, noCertErr, "the server demands a client certificate")
}

// TestKubeconfigErrorsNameWhatIsMissing checks the error for each broken kubeconfig.
// Diagram: step 1. client-go: tools/clientcmd validation errors.
func TestKubeconfigErrorsNameWhatIsMissing(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"empty file", "", "is empty"},
		{"not YAML", "clusters: [", "parsing kubeconfig"},
		{"no current context", "clusters: []\n", "has no current-context"},
		{"missing context", "current-context: gone\ncontexts: []\n", `current-context "gone" is not among its contexts`},
		{"missing cluster", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\n", `names cluster "k", which is not among its clusters`},
		{"missing user", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: 'https://127.0.0.1:1'}\n", `names user "u", which is not among its users`},
		{"no server", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {}\n", `cluster "k" has no server`},
		{"bad server", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {server: 'ftp://x'}\n", "scheme must be http or https"},
		{"bad base64", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {server: 'https://x', certificate-authority-data: '!!'}\n", "certificate-authority-data is not valid base64"},
		{"missing CA file", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {server: 'https://x', certificate-authority: nope.crt}\n", "certificate-authority"},
		{"CA not PEM", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k}\nclusters:\n- name: k\n  cluster: {server: 'https://x', certificate-authority-data: 'aGVsbG8='}\n", "CA data holds no PEM certificate"},
		{"exec plugin", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: 'https://x'}\nusers:\n- name: u\n  user:\n    exec: {command: aws}\n", "exec plugin"},
		{"cert without key", "current-context: c\ncontexts:\n- name: c\n  context: {cluster: k, user: u}\nclusters:\n- name: k\n  cluster: {server: 'https://x'}\nusers:\n- name: u\n  user: {client-certificate-data: 'aGVsbG8='}\n", "client certificate without a key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config")
			require.NoError(t, os.WriteFile(p, []byte(tc.body), 0o600))

			_, err := client.LoadKubeconfig(p)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), "client: "), err.Error())
		})
	}
	_, err := client.LoadKubeconfig(filepath.Join(t.TempDir(), "absent"))
	assert.ErrorContains(t, err, "client: reading kubeconfig")
}

// TestConfigFromURLChecksTheURL checks the URL constructor and that a server path prefix
// (a proxy in front of the API) is kept.
// Diagram: step 1. client-go: rest.Config.Host.
func TestConfigFromURLChecksTheURL(t *testing.T) {
	var gotPaths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotPaths = append(gotPaths, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":[]}`))
	}))
	t.Cleanup(srv.Close)

	cfg, err := client.ConfigFromURL(srv.URL + "/k8s/clusters/c1/")
	require.NoError(t, err)
	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	_, listErr := c.Resource(configMaps).Namespace("ns").List(context.Background(), metav1.ListOptions{})
	_, noScheme := client.ConfigFromURL("127.0.0.1:8080")
	_, noHost := client.ConfigFromURL("http://")
	_, withQuery := client.ConfigFromURL("http://x/?a=b")
	_, nilCfg := client.New(nil, nil)

	assert.NoError(t, listErr)
	assert.Equal(t, []string{"/k8s/clusters/c1/api/v1/namespaces/ns/configmaps", "/k8s/clusters/c1/api/v1"}, gotPaths,
		"the list, then discovery of the resource's kind, both under the prefix")
	assert.ErrorContains(t, noScheme, "scheme must be http or https")
	assert.ErrorContains(t, noHost, "has no host")
	assert.ErrorContains(t, withQuery, "query")
	assert.ErrorContains(t, nilCfg, "nil config")
}
