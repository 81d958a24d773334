package controlplane

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// UncachedResource is served by kube-apiserver straight from etcd, without its
// watch cache (--watch-cache-sizes=podtemplates#0). Every other resource is
// served from the watch cache, as in any cluster, and the watch cache keeps
// answering watches and lists from before an etcd compaction out of its own
// memory. With no cache in front, a compaction has the consequences client-go
// is written for: a watch or a paginated list from a compacted resourceVersion
// gets 410 Expired. PodTemplates are plain namespaced objects nothing else in
// a bare control plane writes, so tests and learners can use them for that.
const UncachedResource = "podtemplates"

// apiserverArgs are kube-apiserver's flags.
func apiserverArgs(dir string, port int, etcdURL string, p *pki, compaction time.Duration, authorization string, extra []string) []string {
	url := fmt.Sprintf("https://127.0.0.1:%d", port)
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		// The address written into the "kubernetes" Service's endpoints. A
		// loopback address is refused there, and there is nothing to reach
		// from inside a cluster anyway: no reconciler keeps those endpoints.
		"--advertise-address=127.0.0.1",
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p.servingCert,
		"--tls-private-key-file=" + p.servingKey,
		// kube-apiserver writes certificates it makes for itself here.
		"--cert-dir=" + filepath.Join(dir, "apiserver-certs"),
		// Authentication: one bearer token (and service-account tokens).
		// Authorization: AlwaysAllow unless Options.AuthorizationMode says.
		"--token-auth-file=" + p.tokenFile,
		"--authorization-mode=" + authorization,
		// Service-account tokens: kube-apiserver will not start without an
		// issuer and a key pair to sign and verify them.
		"--service-account-issuer=" + url,
		"--service-account-key-file=" + p.saPub,
		"--service-account-signing-key-file=" + p.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// kube-apiserver compacts etcd on this interval (default 5 minutes), to
		// the revision it saw one interval earlier.
		"--etcd-compaction-interval=" + compaction.String(),
		"--watch-cache-sizes=" + UncachedResource + "#0",
		// On SIGTERM, end open watches within a second. Without this a
		// single open watch holds the shutdown for a minute: the HTTP server
		// waits for every connection to go idle, and a watch never does.
		"--shutdown-watch-termination-grace-period=1s",
		// Serve shardSelector on list and watch (alpha, off by default):
		// sharded informers ask for a hash range of uids, and the server
		// filters for them.
		"--feature-gates=ShardedListAndWatch=true",
	}
	return append(args, extra...)
}

// startAPIServer starts kube-apiserver with args and waits until /readyz
// answers 200 OK to a request authenticated with the token.
func startAPIServer(ctx context.Context, bin string, args []string, logPath, url string, hc *http.Client, token string) (*process, error) {
	p, err := startProcess("kube-apiserver", bin, args, logPath)
	if err != nil {
		return nil, err
	}
	err = waitUntil(ctx, p, 120*time.Second, func(ctx context.Context) bool {
		return apiserverReady(ctx, hc, url, token)
	})
	if err != nil {
		_ = p.stop(10 * time.Second)
		return nil, fmt.Errorf("%w\nkube-apiserver log (%s):\n%s", err, logPath, p.logTail(20))
	}
	return p, nil
}

// apiserverReady reports whether GET /readyz answers 200: storage reachable,
// every post-start hook done, the built-in APIs registered.
func apiserverReady(ctx context.Context, hc *http.Client, url, token string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// trustingClient is an HTTP client that trusts only caPEM.
func trustingClient(caPEM []byte) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("controlplane: no certificate in the CA PEM")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}, nil
}
