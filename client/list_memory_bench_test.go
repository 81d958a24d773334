package client_test

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var listBytes = flag.Int64("client.listbytes", 64<<20, "size of the list body BenchmarkListPeakMemory serves")

// BenchmarkListPeakMemory lists ConfigMaps whose JSON body is -client.listbytes
// long (64 MiB unless told) and reports the heap's peak during the List next
// to the body's size and the heap the decoded list keeps. A list read whole
// peaks near body + objects; read as a stream, near the objects alone.
//
//	go test ./client -run '^$' -bench ListPeakMemory -benchtime 1x -client.listbytes 1073741824
func BenchmarkListPeakMemory(b *testing.B) {
	value := strings.Repeat("x", 1000)
	item := func(i int) string {
		return fmt.Sprintf(`{"metadata":{"name":"cm-%d","namespace":"ns","resourceVersion":"%d"},"data":{"v":"%s"}}`, i, i+1, value)
	}
	n := int(*listBytes) / len(item(0))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`)
		for i := range n {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			_, _ = io.WriteString(w, item(i))
		}
		_, _ = io.WriteString(w, "]}\n")
	}))
	defer srv.Close()
	c := newClient(b, clientConfig(srv.URL))

	var peak, kept uint64
	for b.Loop() {
		runtime.GC()
		base := heapBytes()
		var max atomic.Uint64
		done := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for {
				if h := heapBytes(); h > max.Load() {
					max.Store(h)
				}
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()

		got, err := c.Resource(configMaps).List(b.Context(), metav1.ListOptions{})

		close(done)
		<-sampled
		if err != nil {
			b.Fatal(err)
		}
		if len(got.(*unstructured.UnstructuredList).Items) != n {
			b.Fatalf("got %d items, want %d", len(got.(*unstructured.UnstructuredList).Items), n)
		}
		runtime.GC()
		peak = max.Load() - base
		kept = heapBytes() - base
		runtime.KeepAlive(got)
	}
	b.ReportMetric(float64(*listBytes)/(1<<20), "body-MiB")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	b.ReportMetric(float64(kept)/(1<<20), "kept-MiB")
}

// heapBytes is the memory held by heap objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
