package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
)

// send makes one request with the given Host (the URL's if empty),
// Content-Type, Origin and token, and returns the status and body.
func send(t *testing.T, method, rawURL, host, contentType, origin, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, rawURL, strings.NewReader(body))
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	for k, v := range map[string]string{"Content-Type": contentType, "Origin": origin} {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(data)
}

// TestCrossSiteRequestsAreRefusedWithAForbiddenStatus sends what a page of
// another site can send to a running fakeapi: a text/plain fault POST, a
// form that creates a ConfigMap, a JSON POST from a foreign Origin, reads
// and writes through a rebound DNS name. Each is 403 with a Forbidden
// Status naming the rule, and none has an effect; kubectl-shaped requests
// still work. With --token the guard applies as well: a valid token does
// not make a text/plain POST acceptable.
// Diagram: API. client-go: none (kube-apiserver needs credentials instead).
func TestCrossSiteRequestsAreRefusedWithAForbiddenStatus(t *testing.T) {
	for _, token := range []string{"", "s3cret"} {
		t.Run("token="+token, func(t *testing.T) {
			args := []string{"--addr", "127.0.0.1:0"}
			if token != "" {
				args = append(args, "--token", token)
			}
			s := startRun(t, args...)
			u, err := url.Parse(s.url)
			require.NoError(t, err)
			rebound := "rebound.example:" + u.Port()
			cms := s.url + "/api/v1/namespaces/default/configmaps"
			cm := func(name string) string {
				return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"` + name + `"}}`
			}
			tests := []struct {
				name, method, url, host, contentType, origin, body, want string
			}{
				{"text/plain latency fault", "POST", s.url + "/admin/faults/latency?delay=5s", "", "text/plain", "http://evil.example", "", "from the page at"},
				{"text/plain compact, same origin", "POST", s.url + "/admin/faults/compact", "", "text/plain", s.url, "", `not Content-Type \"text/plain\"`},
				{"no Content-Type", "POST", s.url + "/admin/faults/compact", "", "", "", "", `not Content-Type \"\"`},
				{"a form creating a ConfigMap", "POST", cms, "", "application/x-www-form-urlencoded", "", cm("form"), "a Content-Type among"},
				{"JSON from a foreign Origin", "POST", cms, "", "application/json", "http://127.0.0.1:1", cm("origin"), `from the page at \"http://127.0.0.1:1\"`},
				{"JSON through a rebound name", "POST", cms, rebound, "application/json", "", cm("rebound"), `Host \"rebound.example:`},
				{"a read through a rebound name", "GET", cms, rebound, "", "", "", "DNS rebinding"},
			}
			for _, tt := range tests {
				code, body := send(t, tt.method, tt.url, tt.host, tt.contentType, tt.origin, token, tt.body)

				assert.Equal(t, http.StatusForbidden, code, "%s: %s", tt.name, body)
				var st metav1.Status
				require.NoError(t, json.Unmarshal([]byte(body), &st), "%s: a Status", tt.name)
				assert.Equal(t, metav1.StatusReasonForbidden, st.Reason, tt.name)
				assert.Equal(t, "Status", st.Kind, tt.name)
				assert.Contains(t, body, tt.want, tt.name)
			}
			listCode, list := send(t, "GET", cms, "", "", "", token, "")
			faultsCode, faults := send(t, "GET", s.url+"/admin/faults", "", "", "", token, "")
			createCode, created := send(t, "POST", cms, "", "application/json", "", token, cm("kubectl"))

			require.Equal(t, http.StatusOK, listCode, list)
			assert.NotContains(t, list, `"name":"form"`)
			assert.NotContains(t, list, `"name":"origin"`)
			assert.NotContains(t, list, `"name":"rebound"`)
			require.Equal(t, http.StatusOK, faultsCode, faults)
			assert.Contains(t, faults, `"compactions":0`)
			assert.Contains(t, faults, `"delayedRequests":0`, "no latency was injected")
			assert.Equal(t, http.StatusCreated, createCode, "a kubectl-shaped create: %s", created)
			assert.Contains(t, s.stderr.String(), "fakeapi: refused a request", "refusals are logged")
		})
	}
}

// TestTokenFileIsReadTrimmedAndExcludesToken: --token-file reads the
// token from a file (its final newline trimmed), which then guards the API
// and goes into the kubeconfig; both flags at once, an empty file and a
// missing one are each one clear error before anything listens.
// Diagram: API. client-go: none (kube-apiserver --token-auth-file).
func TestTokenFileIsReadTrimmedAndExcludesToken(t *testing.T) {
	dir := t.TempDir()
	tokenFile, empty, kubeconfig := filepath.Join(dir, "token"), filepath.Join(dir, "empty"), filepath.Join(dir, "kc")
	require.NoError(t, os.WriteFile(tokenFile, []byte("  s3cret\n"), 0o600))
	require.NoError(t, os.WriteFile(empty, []byte("\n \n"), 0o600))
	twoWords := filepath.Join(dir, "two")
	require.NoError(t, os.WriteFile(twoWords, []byte("s3 cret\n"), 0o600))

	s := startRun(t, "--addr", "127.0.0.1:0", "--token-file", tokenFile, "--write-kubeconfig", kubeconfig)
	noTokenCode, _ := get(t, s.url+"/api/v1/namespaces/default/configmaps", "")
	tokenCode, _ := get(t, s.url+"/api/v1/namespaces/default/configmaps", "s3cret")
	cfg, err := client.LoadKubeconfig(kubeconfig)
	require.NoError(t, err)

	assert.Equal(t, http.StatusUnauthorized, noTokenCode)
	assert.Equal(t, http.StatusOK, tokenCode)
	assert.Equal(t, "s3cret", cfg.BearerToken)
	for _, tt := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--token", "x", "--token-file", tokenFile}, "--token and --token-file exclude each other", true},
		{[]string{"--token-file", empty}, "--token-file " + empty + " is empty", false},
		{[]string{"--token-file", twoWords}, "holds more than one word", false},
		{[]string{"--token-file", filepath.Join(dir, "missing")}, "fakeapi: --token-file: open " + filepath.Join(dir, "missing") + ": no such file or directory", false},
		{[]string{"--read-timeout", "0s"}, "--read-timeout must be positive", true},
	} {
		var stdout, stderr bytes.Buffer
		other := filepath.Join(t.TempDir(), "kc")

		err := run(t.Context(), append([]string{"--addr", "127.0.0.1:0", "--write-kubeconfig", other}, tt.args...), &stdout, &stderr)

		require.Error(t, err, tt.args)
		assert.Contains(t, err.Error(), tt.want)
		assert.Equal(t, tt.usage, errors.As(err, new(*usageError)), "%v: usage error", tt.args)
		assert.NotContains(t, err.Error(), "s3cret", "the token is never printed")
		assert.Empty(t, stdout.String())
		assert.NoFileExists(t, other)
	}
}

// TestKubeconfigIsOwnerOnlyEvenWhenItExisted: a kubeconfig path that
// already holds a world-readable file ends up 0600 before the token is in
// it.
// Diagram: API. client-go: none (clientcmd writes 0600 too).
func TestKubeconfigIsOwnerOnlyEvenWhenItExisted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o644)) // whatever the umask

	startRun(t, "--addr", "127.0.0.1:0", "--token", "s3cret", "--write-kubeconfig", path)

	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), "s3cret")
}

// TestClientThatStopsMidBodyIsDisconnected: a client that sends a
// request's headers and half its body, then nothing, is answered and
// disconnected once --read-timeout has passed, while a watch stays open
// well beyond it (bookmarks keep arriving on one stream).
// Diagram: API. client-go: none (kube-apiserver's request timeout).
func TestClientThatStopsMidBodyIsDisconnected(t *testing.T) {
	const readTimeout = 300 * time.Millisecond
	s := startRun(t, "--addr", "127.0.0.1:0", "--read-timeout", readTimeout.String(), "--bookmark-interval", "100ms", "--log-level", "warn")
	u, err := url.Parse(s.url)
	require.NoError(t, err)
	code, body := send(t, "POST", s.url+"/api/v1/namespaces/default/configmaps", "", "application/json", "", "",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"first"}}`)
	require.Equal(t, http.StatusCreated, code, "bookmarks come once something has happened: %s", body)
	wctx, cancel := context.WithTimeout(t.Context(), testDeadline)
	defer cancel()
	req, err := http.NewRequestWithContext(wctx, http.MethodGet, s.url+"/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true", nil)
	require.NoError(t, err)
	watch, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer watch.Body.Close()
	conn, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(testDeadline)))

	start := time.Now()
	_, err = io.WriteString(conn, "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: "+u.Host+
		"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"metadata\":")
	require.NoError(t, err)
	answer, err := io.ReadAll(conn) // until the server closes the connection
	elapsed := time.Since(start)
	bookmarks := 0
	lines := bufio.NewScanner(watch.Body)
	watchStart := time.Now()
	for time.Since(watchStart) < 3*readTimeout && lines.Scan() {
		if strings.Contains(lines.Text(), `"BOOKMARK"`) {
			bookmarks++
		}
	}

	require.NoError(t, err, "the server closed the connection (no timeout on the test's side)")
	assert.GreaterOrEqual(t, elapsed, readTimeout)
	assert.Less(t, elapsed, readTimeout+5*time.Second, "disconnected soon after the read timeout")
	assert.NotContains(t, string(answer), "201 Created")
	assert.GreaterOrEqual(t, time.Since(watchStart), 3*readTimeout, "the watch outlived the read timeout: %v", lines.Err())
	assert.GreaterOrEqual(t, bookmarks, 2, "bookmarks kept coming on the watch")
}
