package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const shuttingDown = `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}`

const tooManyRequests = `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too many requests, please try again later","reason":"TooManyRequests","code":429}`

const aConfigMap = `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm","namespace":"ns","resourceVersion":"7"}}`

// flakyServer answers the first failures requests with code (and Retry-After if
// retryAfter is not ""), then 200 with ok. It counts the requests it saw.
type flakyServer struct {
	failures   int64
	code       int
	retryAfter string
	ok         string
	seen       atomic.Int64
}

func (s *flakyServer) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if s.seen.Add(1) <= s.failures {
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		w.WriteHeader(s.code)
		if s.code == http.StatusTooManyRequests {
			_, _ = io.WriteString(w, tooManyRequests)
			return
		}
		_, _ = io.WriteString(w, shuttingDown)
		return
	}
	_, _ = io.WriteString(w, s.ok)
}

func inProcessClient(t *testing.T, h http.Handler) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, nil)
	require.NoError(t, err)
	client.ServeInProcess(c, h)
	return c
}

// While an API server drains before it stops, it answers 503 "apiserver is shutting
// down" with Retry-After: 1. A read is sent again after the second it asks for, and
// succeeds once another server (or the restarted one) answers.
// Diagram: step 1. client-go: rest.Request.request (checkWait on 429 and 5xx).
func TestReadsAreRetriedWhenTheServerSaysRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 2, code: http.StatusServiceUnavailable, retryAfter: "1", ok: aConfigMap}
		c := inProcessClient(t, srv)
		began := time.Now()

		obj, err := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})

		require.NoError(t, err)
		assert.Equal(t, "7", obj.(*unstructured.Unstructured).GetResourceVersion())
		assert.Equal(t, int64(3), srv.seen.Load(), "two 503s, then the answer")
		assert.Equal(t, 2*time.Second, time.Since(began), "one second before each retry, as Retry-After says")
	})
}

// Retrying is bounded: after 10 retries the caller gets the server's last answer, as
// an error the apierrors predicates recognise.
// Diagram: step 1. client-go: rest.Request (maxRetries 10).
func TestRetriesStopAfterTen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 1000, code: http.StatusTooManyRequests, retryAfter: "2"}
		c := inProcessClient(t, srv)
		began := time.Now()

		_, err := c.Resource(configMaps).List(t.Context(), metav1.ListOptions{})

		assert.True(t, apierrors.IsTooManyRequests(err), "got %v", err)
		assert.Equal(t, int64(11), srv.seen.Load(), "the first try and ten retries")
		assert.Equal(t, 20*time.Second, time.Since(began))
	})
}

// Only a server that asks for a retry gets one: a 503 without Retry-After, and a 500,
// are the caller's to handle at once (the Reflector backs off and relists).
// Diagram: step 1. client-go: rest.Request (checkWait needs Retry-After).
func TestServerErrorsWithoutRetryAfterAreNotRetried(t *testing.T) {
	for _, code := range []int{http.StatusServiceUnavailable, http.StatusInternalServerError} {
		t.Run(http.StatusText(code), func(t *testing.T) {
			srv := &flakyServer{failures: 1, code: code, ok: aConfigMap}
			c := inProcessClient(t, srv)

			_, err := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})

			require.Error(t, err)
			assert.Equal(t, int64(1), srv.seen.Load())
		})
	}
}

// A create is not idempotent: sent twice it could make two objects or fail with
// AlreadyExists for the caller's own write. It is never re-sent, even when the server
// asks for a retry; the caller decides.
// Diagram: none. client-go retries any request with Retry-After; this client only
// idempotent ones (GET, PUT, DELETE).
func TestCreatesAreNotRetried(t *testing.T) {
	srv := &flakyServer{failures: 1, code: http.StatusServiceUnavailable, retryAfter: "1", ok: aConfigMap}
	c := inProcessClient(t, srv)
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	cm.SetName("cm")

	_, err := c.Resource(configMaps).Namespace("ns").Create(t.Context(), cm, metav1.CreateOptions{})

	assert.True(t, apierrors.IsServiceUnavailable(err), "got %v", err)
	assert.Equal(t, int64(1), srv.seen.Load())
}

// An update (PUT) carries the resourceVersion it read, so sending it twice is safe:
// the server applies it once at most. It is retried like a read.
// Diagram: none. client-go: rest.Request (checkWait).
func TestUpdatesAreRetriedWhenTheServerSaysRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 1, code: http.StatusServiceUnavailable, retryAfter: "1", ok: aConfigMap}
		c := inProcessClient(t, srv)
		cm := &unstructured.Unstructured{}
		cm.SetAPIVersion("v1")
		cm.SetKind("ConfigMap")
		cm.SetNamespace("ns")
		cm.SetName("cm")
		cm.SetResourceVersion("6")

		_, err := c.Resource(configMaps).Namespace("ns").Update(t.Context(), cm, metav1.UpdateOptions{})

		require.NoError(t, err)
		assert.Equal(t, int64(2), srv.seen.Load())
	})
}

// A read whose connection broke before any answer (EOF, reset: a restarting server,
// a proxy that dropped the connection) is sent again a second later; a write is not,
// since the server may have applied it.
// Diagram: step 1. client-go: rest.Request (IsProbableEOF, IsConnectionReset on GET).
func TestReadsAreRetriedAfterABrokenConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, nil)
		require.NoError(t, err)
		var sent atomic.Int64
		client.SetRoundTripper(c, func(req *http.Request) (*http.Response, error) {
			if sent.Add(1) == 1 || req.Method != http.MethodGet {
				return nil, io.EOF
			}
			return &http.Response{StatusCode: 200, Status: "200 OK", Header: http.Header{"Content-Type": {"application/json"}},
				Body: io.NopCloser(strings.NewReader(aConfigMap)), Request: req}, nil
		})
		began := time.Now()

		_, getErr := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})
		require.NoError(t, getErr)
		assert.Equal(t, int64(2), sent.Load())
		assert.Equal(t, time.Second, time.Since(began))

		delErr := c.Resource(configMaps).Namespace("ns").Delete(t.Context(), "cm", metav1.DeleteOptions{})
		assert.ErrorIs(t, delErr, io.EOF)
		assert.Equal(t, int64(3), sent.Load(), "the delete was sent once")
	})
}

// Cancelling the context ends the wait before a retry at once, with an error that
// says what the client was waiting for.
// Diagram: none.
func TestCancelEndsTheWaitBeforeARetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 1000, code: http.StatusServiceUnavailable, retryAfter: "30"}
		c := inProcessClient(t, srv)
		ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
		defer cancel()
		began := time.Now()

		_, err := c.Resource(configMaps).List(ctx, metav1.ListOptions{})

		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, "503 Service Unavailable")
		assert.Equal(t, 45*time.Second, time.Since(began))
		assert.Equal(t, int64(2), srv.seen.Load())
	})
}

// A server's Retry-After is obeyed up to a cap: "Retry-After: 86400" from a
// misconfigured or hostile server makes the client wait 30 seconds, not a day,
// before each retry.
// Diagram: step 1. client-go: none (it waits for as long as the server asks).
func TestRetryAfterIsCappedAtThirtySeconds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 2, code: http.StatusTooManyRequests, retryAfter: "86400", ok: aConfigMap}
		c := inProcessClient(t, srv)
		began := time.Now()

		_, err := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})

		require.NoError(t, err)
		assert.Equal(t, int64(3), srv.seen.Load())
		assert.Equal(t, time.Minute, time.Since(began), "two waits of 30 s, not of a day")
	})
}

// A Retry-After that does not fit a time.Duration once made seconds
// (9300000000 s is past 2^63 ns) is the cap, not a negative wait: a list
// against a server that always answers it waits 30 s before each of its ten
// retries, not zero. Before, the multiplication wrapped and the ten retries
// went out at once.
// Diagram: step 1. client-go: rest.Request (checkWait; it multiplies as well
// and waits for whatever comes out).
func TestAHugeRetryAfterIsTheCapNotAnOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &flakyServer{failures: 1000, code: http.StatusTooManyRequests, retryAfter: "9300000000"}
		c := inProcessClient(t, srv)
		began := time.Now()

		_, err := c.Resource(configMaps).List(t.Context(), metav1.ListOptions{})

		assert.True(t, apierrors.IsTooManyRequests(err), "got %v", err)
		assert.Equal(t, int64(11), srv.seen.Load())
		assert.Equal(t, 10*30*time.Second, time.Since(began), "ten waits at the cap")
	})
}

// Every form a Retry-After header may take is read safely: delta-seconds up to
// the cap and past it (even past what an int64 holds), an HTTP-date in the
// future (the wait until then, capped) or in the past (at once); anything
// else (negative, fractional, words, none) is no request to retry, and the
// server's answer is returned at once, as when the header is missing.
// Diagram: step 1. client-go: rest.Request (checkWait, retryAfterSeconds:
// delta-seconds only, no cap).
func TestRetryAfterIsReadInEveryForm(t *testing.T) {
	date := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(http.TimeFormat) }
	cases := []struct {
		name   string
		header func() string
		sent   int64
		waited time.Duration
	}{
		{"seconds", func() string { return "7" }, 2, 7 * time.Second},
		{"zero", func() string { return "0" }, 2, 0},
		{"spaces around", func() string { return " 2 " }, 2, 2 * time.Second},
		{"over the cap", func() string { return "31" }, 2, 30 * time.Second},
		{"past int64", func() string { return "99999999999999999999" }, 2, 30 * time.Second},
		{"date ahead", func() string { return date(5 * time.Second) }, 2, 5 * time.Second},
		{"date a day ahead", func() string { return date(24 * time.Hour) }, 2, 30 * time.Second},
		{"date past", func() string { return date(-time.Hour) }, 2, 0},
		{"negative", func() string { return "-5" }, 1, 0},
		{"fraction", func() string { return "1.5" }, 1, 0},
		{"a word", func() string { return "soon" }, 1, 0},
		{"missing", func() string { return "" }, 1, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &flakyServer{failures: 1, code: http.StatusServiceUnavailable, retryAfter: tc.header(), ok: aConfigMap}
				c := inProcessClient(t, srv)
				began := time.Now()

				_, err := c.Resource(configMaps).Namespace("ns").Get(t.Context(), "cm", metav1.GetOptions{})

				assert.Equal(t, tc.sent, srv.seen.Load())
				assert.Equal(t, tc.waited, time.Since(began))
				if tc.sent == 1 {
					assert.True(t, apierrors.IsServiceUnavailable(err), "the 503 is returned: %v", err)
				} else {
					assert.NoError(t, err)
				}
			})
		})
	}
}

// The delay an error suggests to its caller (apierrors.SuggestsClientDelay,
// from the Retry-After header when the Status does not carry one) is read
// like the client's own wait: capped, never an int32 that wrapped negative.
// Diagram: step 1. client-go: apierrors.NewGenericServerResponse (retryAfterSeconds).
func TestTheDelayAnErrorSuggestsIsCapped(t *testing.T) {
	for _, header := range []string{"9300000000", "2147483648", "86400"} {
		srv := &flakyServer{failures: 1, code: http.StatusTooManyRequests, retryAfter: header}
		c := inProcessClient(t, srv)

		_, err := c.Resource(configMaps).Namespace("ns").Create(t.Context(), newConfigMap(), metav1.CreateOptions{})

		delay, ok := apierrors.SuggestsClientDelay(err)
		assert.True(t, ok, "Retry-After: %s", header)
		assert.Equal(t, 30, delay, "Retry-After: %s", header)
	}
}
