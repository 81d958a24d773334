package e2e

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
)

// deadline bounds every wait on a real process or socket.
const deadline = 30 * time.Second

// fakeapiBinary and demoBinary are the cmd/fakeapi and cmd/demo binaries
// built by TestMain; siteDir is the playground's static site, built by
// TestMain with the documented command (go run ./cmd/playground/build).
var fakeapiBinary, demoBinary, siteDir string

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "informerlab-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e: temp dir:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	fakeapiBinary = filepath.Join(dir, "fakeapi")
	demoBinary = filepath.Join(dir, "demo")
	for bin, pkg := range map[string]string{fakeapiBinary: "./cmd/fakeapi", demoBinary: "./cmd/demo"} {
		args := []string{"build", "-o", bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, pkg)...)
		build.Dir = ".." // the main module, with its own go.mod
		if out, err := build.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: go build %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	siteDir = filepath.Join(dir, "site")
	build := exec.Command("go", "run", "./cmd/playground/build", "-out", siteDir)
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go run ./cmd/playground/build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// fakeapiProcess is a running cmd/fakeapi.
type fakeapiProcess struct {
	URL        string
	Token      string
	Kubeconfig string
	client     *http.Client  // trusts the server's certificate (with --tls)
	logs       *lockedBuffer // the process's stderr: one line per request and fault
}

// startFakeapi starts cmd/fakeapi on a free loopback port with a
// kubeconfig, waits until /readyz answers, and stops it (SIGTERM, then a
// required clean exit) when the test ends. extra flags are appended; a
// --token among them is remembered for admin calls.
func startFakeapi(t *testing.T, extra ...string) *fakeapiProcess {
	t.Helper()
	p := &fakeapiProcess{
		Kubeconfig: filepath.Join(t.TempDir(), "kubeconfig"),
		logs:       &lockedBuffer{},
	}
	for i, arg := range extra {
		if arg == "--token" && i+1 < len(extra) {
			p.Token = extra[i+1]
		}
	}
	args := append([]string{"--addr", "127.0.0.1:0", "--write-kubeconfig", p.Kubeconfig}, extra...)
	cmd := exec.Command(fakeapiBinary, args...)
	cmd.Stderr = p.logs
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if url, ok := strings.CutPrefix(sc.Text(), "fakeapi: serving on "); ok {
				urls <- url
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("fakeapi logs:\n%s", p.logs)
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("fakeapi did not exit cleanly on SIGTERM: %v\nlogs:\n%s", err, p.logs)
			}
		case <-time.After(deadline):
			_ = cmd.Process.Kill()
			<-exited
			t.Errorf("fakeapi did not exit within %v of SIGTERM\nlogs:\n%s", deadline, p.logs)
		}
	})

	select {
	case p.URL = <-urls:
	case err := <-exited:
		require.FailNowf(t, "fakeapi exited before serving", "%v\nlogs:\n%s", err, p.logs)
	case <-time.After(deadline):
		require.FailNowf(t, "fakeapi printed no URL", "logs:\n%s", p.logs)
	}
	p.client = httpClientFor(t, p.Kubeconfig)
	waitReady(t, p.client, p.URL)
	return p
}

// httpClientFor returns a plain HTTP client that trusts the CA of the
// kubeconfig's current cluster, if it has one (fakeapi --tls).
func httpClientFor(t *testing.T, kubeconfig string) *http.Client {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(kubeconfig)
	require.NoError(t, err)
	kctx := kc.Contexts[kc.CurrentContext]
	require.NotNil(t, kctx, "kubeconfig has its current context %q", kc.CurrentContext)
	cluster := kc.Clusters[kctx.Cluster]
	require.NotNil(t, cluster)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if len(cluster.CertificateAuthorityData) > 0 {
		pool := x509.NewCertPool()
		require.True(t, pool.AppendCertsFromPEM(cluster.CertificateAuthorityData))
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	t.Cleanup(transport.CloseIdleConnections)
	return &http.Client{Transport: transport}
}

// waitReady polls url/readyz until it answers 200 "ok", failing the test at
// the deadline. Each poll waits for the previous answer, so there is no
// fixed sleep; a refused connection is retried after a short backoff.
func waitReady(t *testing.T, client *http.Client, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	backoff := time.Millisecond
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && string(body) == "ok" {
				return
			}
			err = fmt.Errorf("status %d: %q", resp.StatusCode, body)
		}
		select {
		case <-ctx.Done():
			require.FailNowf(t, "fakeapi never became ready", "%s/readyz: %v", url, err)
		case <-time.After(backoff):
			backoff = min(2*backoff, 100*time.Millisecond)
		}
	}
}

// admin calls a fault endpoint: POST /admin/faults/<fault>?query.
func (p *fakeapiProcess) admin(t *testing.T, faultAndQuery string) {
	t.Helper()
	code, body := p.do(t, http.MethodPost, "/admin/faults/"+faultAndQuery, "application/json", "")
	require.Equal(t, http.StatusOK, code, "admin %s: %s", faultAndQuery, body)
}

// do sends one authenticated request and returns the status and body.
func (p *fakeapiProcess) do(t *testing.T, method, path, contentType, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, p.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if p.Token != "" {
		req.Header.Set("Authorization", "Bearer "+p.Token)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := p.client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

// Logs returns what the process has logged so far.
func (p *fakeapiProcess) Logs() string { return p.logs.String() }

// lockedBuffer collects a process's output; safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex // guards buf
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var errNoKubectl = errors.New("e2e: kubectl not found at /usr/bin/kubectl (CI must install it)")
