package controlplane

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// etcdArgs are etcd's flags: one member on loopback, data in dataDir.
//
// --unsafe-no-fsync skips fsync on every write: a throwaway store does not need
// to survive a power cut, and on a busy disk fsync makes every write slow
// (controller-runtime's envtest starts etcd the same way).
func etcdArgs(dataDir string, clientPort, peerPort int) []string {
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	return []string{
		"--name=default",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=default=" + peer,
		"--unsafe-no-fsync=true",
	}
}

// startEtcd starts etcd with its data under dir and waits until it reports
// itself healthy. It retries with fresh ports if etcd exits at once (another
// process took a port between choosing it and binding it).
func startEtcd(ctx context.Context, bin, dir string) (*process, string, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		ports, err := freePorts(2)
		if err != nil {
			return nil, "", err
		}
		url := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
		p, err := startProcess("etcd", bin, etcdArgs(filepath.Join(dir, "etcd"), ports[0], ports[1]),
			filepath.Join(dir, "etcd.log"))
		if err != nil {
			return nil, "", err
		}
		err = waitUntil(ctx, p, 60*time.Second, func(ctx context.Context) bool {
			return etcdHealthy(ctx, url)
		})
		if err == nil {
			return p, url, nil
		}
		_ = p.stop(5 * time.Second)
		lastErr = fmt.Errorf("%w\netcd log:\n%s", err, p.logTail(20))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, "", lastErr
}

// etcdHealthy asks etcd's /health endpoint.
func etcdHealthy(ctx context.Context, url string) bool {
	var health struct {
		Health string `json:"health"`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	return resp.StatusCode == http.StatusOK && json.NewDecoder(resp.Body).Decode(&health) == nil && health.Health == "true"
}

// The etcd calls below go through etcd's gRPC gateway: the same KV API as the
// gRPC clients use, as JSON over HTTP at /v3/..., served on the client URL.
// That keeps etcd's client library (and gRPC) out of this module.

// etcdRevision returns the current revision of the etcd at url: the number
// every write increments, and the resourceVersion the next write will get.
func etcdRevision(ctx context.Context, url string) (int64, error) {
	var resp struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// A range over the single key "\x00" matches nothing; the header still
	// carries the store's revision.
	if err := etcdPost(ctx, url, "/v3/kv/range", map[string]any{"key": "AA==", "count_only": true}, &resp); err != nil {
		return 0, err
	}
	rev, err := strconv.ParseInt(resp.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("controlplane: etcd revision %q: %w", resp.Header.Revision, err)
	}
	return rev, nil
}

// etcdCompact compacts the etcd at url to revision rev: every older version of
// every key is forgotten, so a watch or a paginated list from before rev can
// only be answered with 410 Expired.
func etcdCompact(ctx context.Context, url string, rev int64) error {
	body := map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}
	return etcdPost(ctx, url, "/v3/kv/compaction", body, nil)
}

// etcdPost posts body as JSON to the gateway path and decodes the answer into
// out (if not nil).
func etcdPost(ctx context.Context, url, path string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("controlplane: etcd %s: %w", path, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+path, bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("controlplane: etcd %s: %w", path, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("controlplane: etcd %s: %w", path, err)
	}
	defer resp.Body.Close()
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("controlplane: etcd %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("controlplane: etcd %s: %s: %s", path, resp.Status, bytes.TrimSpace(respBody))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(respBody, out); err != nil {
		return fmt.Errorf("controlplane: etcd %s: decode %q: %w", path, respBody, err)
	}
	return nil
}
