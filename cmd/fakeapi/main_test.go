package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
)

// testDeadline bounds every wait on the real socket.
const testDeadline = 10 * time.Second

var configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// output is an io.Writer safe for concurrent use whose content a test can
// wait on.
type output struct {
	mu      sync.Mutex // guards buf and changed
	buf     bytes.Buffer
	changed chan struct{} // closed and replaced on every write
}

func newOutput() *output { return &output{changed: make(chan struct{})} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	close(o.changed)
	o.changed = make(chan struct{})
	return o.buf.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// waitFor waits until the output contains a line starting with prefix and
// returns the rest of that line.
func (o *output) waitFor(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.After(testDeadline)
	for {
		o.mu.Lock()
		text, changed := o.buf.String(), o.changed
		o.mu.Unlock()
		for line := range strings.Lines(text) {
			if rest, ok := strings.CutPrefix(line, prefix); ok && strings.HasSuffix(line, "\n") {
				return strings.TrimSuffix(rest, "\n")
			}
		}
		select {
		case <-changed:
		case <-deadline:
			require.FailNowf(t, "output never had the line", "prefix %q; output so far:\n%s", prefix, text)
		}
	}
}

// started is a fakeapi process started by startRun.
type started struct {
	url            string
	stdout, stderr *output
	cancel         context.CancelFunc
	done           chan error // receives run's result
}

// startRun runs the command with args in a goroutine and waits until it
// prints its URL. The test's cleanup cancels it and waits for it to return.
func startRun(t *testing.T, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	s := &started{stdout: newOutput(), stderr: newOutput(), cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, args, s.stdout, s.stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-s.done:
		case <-time.After(testDeadline):
			t.Errorf("run did not return after cancel")
		}
	})
	s.url = s.stdout.waitFor(t, "fakeapi: serving on ")
	return s
}

// stop cancels the run and returns its result.
func (s *started) stop(t *testing.T) error {
	t.Helper()
	s.cancel()
	select {
	case err := <-s.done:
		s.done <- err // for the cleanup
		return err
	case <-time.After(testDeadline):
		require.FailNow(t, "run did not return after cancel")
		return nil
	}
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// TestHelpPrintsDescriptionFlagsAndExamples checks that --help (and -h)
// print, on stdout, what the command is, every flag, and example command
// lines, and that asking for help is not an error.
// Diagram: API. client-go: none (kube-apiserver --help).
func TestHelpPrintsDescriptionFlagsAndExamples(t *testing.T) {
	for _, arg := range []string{"--help", "-h", "-help"} {
		t.Run(arg, func(t *testing.T) {
			var stdout, stderr bytes.Buffer

			err := run(t.Context(), []string{arg}, &stdout, &stderr)

			require.NoError(t, err)
			help := stdout.String()
			assert.Contains(t, help, "in-memory Kubernetes API server")
			for _, flag := range []string{"--addr", "--tls", "--token", "--history", "--bookmark-interval", "--write-kubeconfig", "--log-level"} {
				assert.Contains(t, help, "\n  "+flag, "flag %s is listed", flag)
			}
			assert.Contains(t, help, "(default 127.0.0.1:8080)")
			assert.Contains(t, help, "loopback")
			assert.Contains(t, help, "Examples:")
			assert.GreaterOrEqual(t, strings.Count(help, "\n  fakeapi "), 3, "at least three example fakeapi command lines")
			assert.Contains(t, help, "kubectl --kubeconfig")
			assert.Empty(t, stderr.String())
		})
	}
}

// TestBadFlagsFailWithOneClearMessage checks that each kind of bad command
// line is a usage error naming the problem and pointing at --help, before
// anything listens or is written.
// Diagram: API. client-go: none.
func TestBadFlagsFailWithOneClearMessage(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "flag provided but not defined: -no-such-flag"},
		{[]string{"--history", "ten"}, `invalid value "ten" for flag -history`},
		{[]string{"--history", "0"}, "--history must be at least 1, got 0"},
		{[]string{"--bookmark-interval", "soon"}, `invalid value "soon" for flag -bookmark-interval`},
		{[]string{"--bookmark-interval", "0s"}, "--bookmark-interval must not be 0"},
		{[]string{"--log-level", "loud"}, `--log-level must be debug, info, warn or error, got "loud"`},
		{[]string{"--addr", ""}, "--addr must not be empty"},
		{[]string{"--token", "two words"}, "--token must not contain whitespace"},
		{[]string{"serve"}, `unexpected argument "serve"`},
		{[]string{"--addr"}, "flag needs an argument: -addr"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer

			err := run(t.Context(), append([]string{"--write-kubeconfig", kubeconfig}, tt.args...), &stdout, &stderr)

			var usage *usageError
			require.ErrorAs(t, err, &usage)
			assert.Contains(t, err.Error(), tt.want)
			assert.True(t, strings.HasPrefix(err.Error(), "fakeapi: "), "message %q starts with the command name", err)
			assert.Contains(t, err.Error(), "fakeapi --help")
			assert.Empty(t, stdout.String())
			assert.Empty(t, stderr.String())
			assert.NoFileExists(t, kubeconfig)
		})
	}
}

// TestServesRequestsLogsThemAndExitsCleanlyOnCancel starts the command on a
// free loopback port, makes a request, keeps a watch open, and cancels (as
// SIGINT does): run returns nil promptly, the open watch's stream ends, and
// every request was logged on stderr.
// Diagram: API. client-go: none (kube-apiserver graceful termination).
func TestServesRequestsLogsThemAndExitsCleanlyOnCancel(t *testing.T) {
	s := startRun(t, "--addr", "127.0.0.1:0")
	require.True(t, strings.HasPrefix(s.url, "http://127.0.0.1:"), "url %q", s.url)
	code, body := get(t, s.url+"/readyz", "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok", body)
	watchResp, err := http.Get(s.url + "/api/v1/namespaces/default/configmaps?watch=true")
	require.NoError(t, err)
	defer watchResp.Body.Close()
	require.Equal(t, http.StatusOK, watchResp.StatusCode)
	watchEnded := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, watchResp.Body)
		watchEnded <- err
	}()

	start := time.Now()
	err = s.stop(t)

	require.NoError(t, err)
	assert.Less(t, time.Since(start), shutdownTimeout, "shutdown did not wait for the open watch")
	select {
	case err := <-watchEnded:
		assert.NoError(t, err, "the watch stream ended cleanly")
	case <-time.After(testDeadline):
		assert.Fail(t, "the open watch did not end on shutdown")
	}
	logs := s.stderr.String()
	assert.Contains(t, logs, "uri=/readyz")
	assert.Contains(t, logs, "watch=true")
	assert.Contains(t, logs, "shutting down")
	_, err = http.Get(s.url + "/readyz")
	assert.Error(t, err, "nothing listens after shutdown")
}

// TestWritesKubeconfigThatConnects checks --write-kubeconfig: the file has
// mode 0600, names the actual listening URL (port 0 resolved), the token,
// a context and current-context, and a client built from it reaches the
// server, while a request without the token gets 401.
// Diagram: step 1. client-go: tools/clientcmd.BuildConfigFromFlags.
func TestWritesKubeconfigThatConnects(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	s := startRun(t, "--addr", "127.0.0.1:0", "--token", "s3cret", "--write-kubeconfig", path)

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal(data, &raw))
	assert.Equal(t, "v1", raw["apiVersion"])
	assert.Equal(t, "Config", raw["kind"])
	assert.Equal(t, "fakeapi", raw["current-context"])
	cfg, err := client.LoadKubeconfig(path)
	require.NoError(t, err)
	assert.Equal(t, s.url, cfg.Server)
	assert.Equal(t, "s3cret", cfg.BearerToken)
	assert.Equal(t, "default", cfg.Namespace)
	assert.Contains(t, s.stdout.String(), "kubectl --kubeconfig "+path)

	c, err := client.New(cfg, nil)
	require.NoError(t, err)
	list, err := c.Resource(configMaps).Namespace(cfg.Namespace).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	assert.NotNil(t, list)
	code, _ := get(t, s.url+"/api/v1/namespaces/default/configmaps", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _ = get(t, s.url+"/api/v1/namespaces/default/configmaps", "s3cret")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, s.stderr.String(), "--token without --tls", "warned that kubectl will not send the token")
}

// TestTLSServesHTTPSWithTheCertificateInTheKubeconfig checks --tls: the URL
// is https, the kubeconfig's certificate-authority-data is the server's
// certificate (a client built from it verifies the server and sends the
// token), a client that does not trust it is refused, and the token is
// still required.
// Diagram: step 1. client-go: tools/clientcmd (token sent only over https).
func TestTLSServesHTTPSWithTheCertificateInTheKubeconfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	s := startRun(t, "--addr", "127.0.0.1:0", "--tls", "--token", "s3cret", "--write-kubeconfig", path)
	require.True(t, strings.HasPrefix(s.url, "https://127.0.0.1:"), "url %q", s.url)

	var raw struct {
		Clusters []struct {
			Cluster struct {
				CAData string `yaml:"certificate-authority-data"`
			} `yaml:"cluster"`
		} `yaml:"clusters"`
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, &raw))
	require.Len(t, raw.Clusters, 1)
	caPEM, err := base64.StdEncoding.DecodeString(raw.Clusters[0].Cluster.CAData)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	require.True(t, pool.AppendCertsFromPEM(caPEM), "certificate-authority-data is a PEM certificate")
	cfg, err := client.LoadKubeconfig(path)
	require.NoError(t, err)
	c, err := client.New(cfg, nil)
	require.NoError(t, err)

	_, err = c.Resource(configMaps).Namespace("default").List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err, "a client from the kubeconfig verifies the server and sends the token")
	_, err = http.Get(s.url + "/readyz")
	var unknownAuthority x509.UnknownAuthorityError
	assert.ErrorAs(t, err, &unknownAuthority, "a client without the certificate does not trust the server")
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	defer trusting.CloseIdleConnections()
	resp, err := trusting.Get(s.url + "/api/v1/namespaces/default/configmaps")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the token is still required")
	resp, err = trusting.Get(strings.Replace(s.url, "127.0.0.1", "localhost", 1) + "/readyz")
	require.NoError(t, err, "the certificate also names localhost")
	resp.Body.Close()
	assert.NotContains(t, s.stderr.String(), "--token without --tls")
}

// TestKubeconfigWithoutTokenHasNoToken checks that without --token the
// kubeconfig's user carries no credentials and requests need none.
// Diagram: step 1. client-go: tools/clientcmd.BuildConfigFromFlags.
func TestKubeconfigWithoutTokenHasNoToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	s := startRun(t, "--addr", "127.0.0.1:0", "--write-kubeconfig", path)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	cfg, err := client.LoadKubeconfig(path)
	require.NoError(t, err)

	assert.NotContains(t, string(data), "token")
	assert.Equal(t, s.url, cfg.Server)
	assert.Empty(t, cfg.BearerToken)
	code, _ := get(t, s.url+"/api/v1/namespaces/default/configmaps", "")
	assert.Equal(t, http.StatusOK, code)
}

// TestStartupFailuresAreReported checks that an address in use and an
// unwritable kubeconfig path are ordinary errors (exit status 1), not usage
// errors, and that run returns instead of hanging.
// Diagram: API. client-go: none.
func TestStartupFailuresAreReported(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"address in use", []string{"--addr", busy.Addr().String()}, "fakeapi: listen on " + busy.Addr().String()},
		{"kubeconfig directory missing", []string{"--addr", "127.0.0.1:0", "--write-kubeconfig", filepath.Join(t.TempDir(), "missing", "kc")}, "fakeapi: client: write kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer

			err := run(t.Context(), tt.args, &stdout, &stderr)

			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, errors.As(err, new(*usageError)), "not a usage error")
			assert.NotContains(t, stdout.String(), "serving on")
		})
	}
}

// TestServerURLUsesLoopbackForUnspecifiedHosts checks the URL printed and
// written to the kubeconfig for each kind of listening address.
// Diagram: API. client-go: none.
func TestServerURLUsesLoopbackForUnspecifiedHosts(t *testing.T) {
	tests := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "http://127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, "http://127.0.0.1:80"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 6443}, "http://[::1]:6443"},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 1}, "http://192.0.2.7:1"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.addr), func(t *testing.T) {
			assert.Equal(t, tt.want, serverURL("http", tt.addr))
		})
	}
}

// TestSampleResourcesAreValidatedAgainstTheirTypes checks that with
// --sample-resources a Foo whose spec.replicas is a string is refused with
// 422 Invalid naming the field, as a real server with the Foo CRD refuses
// it, and a well-typed Foo is created.
// Diagram: API. client-go: none (kube-apiserver's CRD schema validation).
func TestSampleResourcesAreValidatedAgainstTheirTypes(t *testing.T) {
	s := startRun(t, "--addr", "127.0.0.1:0", "--sample-resources")
	post := func(replicas string) (int, string) {
		body := `{"apiVersion":"samplecontroller.k8s.io/v1alpha1","kind":"Foo","metadata":{"name":"f` + fmt.Sprint(len(replicas)) +
			`"},"spec":{"deploymentName":"web","replicas":` + replicas + `}}`
		resp, err := http.Post(s.url+"/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(data)
	}

	badCode, badBody := post(`"three"`)
	goodCode, goodBody := post(`3`)

	assert.Equal(t, http.StatusUnprocessableEntity, badCode, badBody)
	assert.Contains(t, badBody, `spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\"`)
	assert.Equal(t, http.StatusCreated, goodCode, goodBody)
}

// TestSampleDeploymentsAreDecodedAsTheRealType: with --sample-resources a
// Deployment is read as kube-apiserver reads one, into the whole apps/v1
// type, not only the fields the sample controller's Deployment has. A
// minReadySeconds that is a string is 400 in the real decoder's words (it
// was stored, and then no typed Deployment informer could list), and a
// well-typed field the sample type lacks is accepted.
// Diagram: API. kube-apiserver: decoding into apps/v1.Deployment.
func TestSampleDeploymentsAreDecodedAsTheRealType(t *testing.T) {
	s := startRun(t, "--addr", "127.0.0.1:0", "--sample-resources")
	post := func(name, minReady string) (int, string) {
		body := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"` + name + `"},"spec":{"minReadySeconds":` + minReady +
			`,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`
		resp, err := http.Post(s.url+"/apis/apps/v1/namespaces/default/deployments", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(data)
	}

	badCode, badBody := post("soon", `"soon"`)
	goodCode, goodBody := post("ready", `5`)

	assert.Equal(t, http.StatusBadRequest, badCode, badBody)
	assert.Contains(t, badBody, `Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.minReadySeconds of type int32`)
	assert.Equal(t, http.StatusCreated, goodCode, goodBody)
	assert.Contains(t, goodBody, `"minReadySeconds":5`)
}
