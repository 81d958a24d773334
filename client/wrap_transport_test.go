package client_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/client"
)

// byteCounter is a RoundTripper that counts the bytes of the response
// bodies it passes on, as a replica counts what it receives.
type byteCounter struct {
	next  http.RoundTripper
	bytes atomic.Int64
}

func (b *byteCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{ReadCloser: resp.Body, n: &b.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A WrapTransport sees every response of its client and of no other: a
// counter wrapped around one client's transport counts exactly the bytes of
// that client's answers.
// Diagram: step 1. client-go: rest.Config.WrapTransport.
func TestWrapTransportSeesEveryResponseOfItsClient(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, aConfigMap)
	}))
	defer srv.Close()
	counter := &byteCounter{}
	cfg := client.Config{Server: srv.URL, Logger: slog.New(slog.DiscardHandler),
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			counter.next = rt
			return counter
		}}
	counted := newClient(t, cfg)
	other := newClient(t, client.Config{Server: srv.URL})

	for range 3 {
		_, err := counted.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
		require.NoError(t, err)
		_, err = other.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
		require.NoError(t, err)
	}

	assert.Equal(t, int64(3*len(aConfigMap)), counter.bytes.Load())
}

// A wrapped client still shares the transport of its settings, and so its
// connections: the wrapper is handed the very transport an unwrapped
// client uses, and two wrappers of one setting get the same one.
// Diagram: none. client-go: transport.New's tlsCache, keyed without the wrapper.
func TestWrapTransportKeepsTheSharedTransport(t *testing.T) {
	var got []http.RoundTripper
	wrap := func(rt http.RoundTripper) http.RoundTripper {
		got = append(got, rt)
		return &byteCounter{next: rt}
	}
	plain := newClient(t, client.Config{Server: "http://127.0.0.1:1"})

	a := newClient(t, client.Config{Server: "http://127.0.0.1:1", WrapTransport: wrap})
	b := newClient(t, client.Config{Server: "http://127.0.0.1:2", WrapTransport: wrap})

	require.Len(t, got, 2)
	assert.Same(t, client.TransportOf(plain), got[0], "the wrapper wraps the shared transport")
	assert.Same(t, got[0], got[1], "two wrapped clients of one setting share it")
	assert.IsType(t, &byteCounter{}, client.TransportOf(a))
	assert.NotSame(t, client.TransportOf(a), client.TransportOf(b), "each client has its own wrapper")
}

// A wrapper that returns nil is refused when the client is made, not at
// its first request; and a Config with a wrapper prints as one without.
// Diagram: none. client-go: none.
func TestWrapTransportReturningNilIsAnErrorAndIsNotPrinted(t *testing.T) {
	cfg := client.Config{Server: "http://127.0.0.1:1", BearerToken: "s3cret",
		WrapTransport: func(http.RoundTripper) http.RoundTripper { return nil }}

	_, err := client.New(&cfg, nil)
	printed := fmt.Sprintf("%v %+v %#v", cfg, cfg, cfg)
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", cfg)

	require.EqualError(t, err, "client: Config.WrapTransport returned a nil RoundTripper")
	for _, out := range []string{printed, logged.String()} {
		assert.NotContains(t, out, "s3cret")
		assert.NotContains(t, out, "0x", "no function pointer is printed")
	}
}
