package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"time"

	"github.com/informerlab/informerlab/informer"
)

// The --stats snapshot's cadence: rewritten every statsInterval; the heap
// figure is that of the last garbage collection, which is forced when the
// last one is older than gcInterval, so it is never more than that stale.
const (
	statsInterval = 250 * time.Millisecond
	gcInterval    = 2 * time.Second
)

// statsSnapshot is what --stats writes.
type statsSnapshot struct {
	Identity string `json:"identity"`
	// Time is when the snapshot was taken, Unix nanoseconds.
	Time int64 `json:"time"`
	// Held is the sorted buckets whose Lease the replica holds (empty when
	// it is not sharded); Buckets the ring's number of buckets.
	Held    []int `json:"held"`
	Buckets int   `json:"buckets"`
	// Leading says whether the replica's controllers run: with
	// --leader-elect, whether it holds the Lease; otherwise always true.
	Leading bool `json:"leading"`
	// Foos and Deployments are the sizes of the two informers' caches.
	Foos        int `json:"foos"`
	Deployments int `json:"deployments"`
	// BytesReceived counts response body bytes by resource: foos,
	// deployments, leases and other.
	BytesReceived map[string]int64 `json:"bytesReceived"`
	// HeapLiveBytes is runtime/metrics' /gc/heap/live:bytes: the heap the
	// last garbage collection found reachable.
	HeapLiveBytes uint64 `json:"heapLiveBytes"`
}

// byteCounts counts the bytes of response bodies by the resource a request
// named. It is safe for concurrent use.
type byteCounts struct {
	foos, deployments, leases, other atomic.Int64
}

func (c *byteCounts) snapshot() map[string]int64 {
	return map[string]int64{"foos": c.foos.Load(), "deployments": c.deployments.Load(), "leases": c.leases.Load(), "other": c.other.Load()}
}

// counter returns the counter of the resource a request path names:
// /api/v1/..., /apis/GROUP/VERSION/..., then namespaces/NS/RESOURCE/... or
// RESOURCE/....
func (c *byteCounts) counter(path string) *atomic.Int64 {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		rest = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		rest = parts[3:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	if len(rest) == 0 {
		return &c.other
	}
	switch rest[0] {
	case "foos":
		return &c.foos
	case "deployments":
		return &c.deployments
	case "leases":
		return &c.leases
	}
	return &c.other
}

// wrap is a client.Config.WrapTransport: it counts every response body's
// bytes as they are read, watches' included.
func (c *byteCounts) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(req)
		if err == nil && resp.Body != nil {
			resp.Body = &countedBody{ReadCloser: resp.Body, n: c.counter(req.URL.Path)}
		}
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

type countedBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// statsWriter takes and writes the snapshots.
type statsWriter struct {
	path        string
	identity    string
	buckets     int
	held        func() []int // nil when not sharded
	leading     func() bool  // nil means always
	foos, deps  informer.SharedIndexInformer
	bytes       *byteCounts
	lastGC      time.Time
	heapSamples []metrics.Sample
}

// run rewrites the snapshot every statsInterval until ctx ends, and once
// more then. It returns the first error writing it.
func (s *statsWriter) run(ctx context.Context) error {
	s.heapSamples = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(statsInterval)
	defer tick.Stop()
	for {
		if err := s.write(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return s.write()
		case <-tick.C:
		}
	}
}

func (s *statsWriter) take() statsSnapshot {
	if time.Since(s.lastGC) >= gcInterval {
		runtime.GC()
		s.lastGC = time.Now()
	}
	metrics.Read(s.heapSamples)
	snap := statsSnapshot{
		Identity:      s.identity,
		Time:          time.Now().UnixNano(),
		Held:          []int{},
		Buckets:       s.buckets,
		Foos:          len(s.foos.GetIndexer().ListKeys()),
		Deployments:   len(s.deps.GetIndexer().ListKeys()),
		BytesReceived: s.bytes.snapshot(),
	}
	if v := s.heapSamples[0].Value; v.Kind() == metrics.KindUint64 {
		snap.HeapLiveBytes = v.Uint64()
	}
	if s.held != nil {
		snap.Held = s.held()
	}
	snap.Leading = s.leading == nil || s.leading()
	return snap
}

// write replaces the file atomically: a reader sees the last snapshot or
// this one, never half of one.
func (s *statsWriter) write() error {
	b, err := json.Marshal(s.take())
	if err != nil {
		return fmt.Errorf("samplecontroller: --stats: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("samplecontroller: --stats: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := cmpErr(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("samplecontroller: --stats: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("samplecontroller: --stats: %w", err)
	}
	return nil
}

func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
