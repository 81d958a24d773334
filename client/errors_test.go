package client_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// serveOnce returns a Client whose every request is answered in-process with code,
// body and headers. With no sockets involved, a test can run it inside a synctest
// bubble, where the client's waits before retrying take no real time.
func serveOnce(t *testing.T, code int, contentType, body string, header map[string]string) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, nil)
	require.NoError(t, err)
	client.ServeInProcess(c, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(code)
		_, _ = w.Write([]byte(body))
	}))
	return c
}

// TestStatusBodiesBecomeStatusErrors checks that a metav1.Status error body comes back
// as that Status, so the apierrors predicates the reflector relies on work over HTTP.
// Diagram: step 1. client-go: rest.Request.transformResponse.
func TestStatusBodiesBecomeStatusErrors(t *testing.T) {
	cases := []struct {
		name  string
		code  int
		body  string
		check func(error) bool
	}{
		{"410 Expired", 410, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 5 (9)","reason":"Expired","code":410}`, apierrors.IsResourceExpired},
		{"410 Gone", 410, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone","reason":"Gone","code":410}`, apierrors.IsGone},
		{"422 Invalid", 422, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Invalid","code":422,"details":{"causes":[{"reason":"FieldValueRequired","field":"metadata.name"}]}}`, apierrors.IsInvalid},
		{"504 too large RV", 504, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too large resource version","reason":"Timeout","code":504,"details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}}`, apierrors.IsTimeout},
		{"429 with Retry-After only in the header", 429, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`, apierrors.IsTooManyRequests},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // 429 and 504 are retried first, 7 s apart
				c := serveOnce(t, tc.code, "application/json", tc.body, map[string]string{"Retry-After": "7"})

				_, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

				var se *apierrors.StatusError
				require.ErrorAs(t, err, &se)
				assert.True(t, tc.check(err), "predicate false for %v", err)
				assert.Equal(t, int32(tc.code), se.ErrStatus.Code)
				delay, ok := apierrors.SuggestsClientDelay(err)
				assert.True(t, ok)
				assert.Positive(t, delay)
			})
		})
	}
}

// TestNonStatusErrorBodiesBecomeGenericStatusErrors checks the fallback for servers or
// proxies that answer with something other than a Status: the code decides the reason.
// Diagram: step 1. client-go: errors.NewGenericServerResponse.
func TestNonStatusErrorBodiesBecomeGenericStatusErrors(t *testing.T) {
	cases := []struct {
		name  string
		code  int
		check func(error) bool
	}{
		{"404", 404, apierrors.IsNotFound},
		{"409", 409, apierrors.IsConflict},
		{"410", 410, apierrors.IsGone},
		{"429", 429, apierrors.IsTooManyRequests},
		{"500", 500, apierrors.IsInternalError},
		{"503", 503, apierrors.IsServiceUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serveOnce(t, tc.code, "text/html", "<html>proxy says no</html>", nil)

			_, err := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{})

			var se *apierrors.StatusError
			require.ErrorAs(t, err, &se)
			assert.True(t, tc.check(err), "predicate false for %v", err)
			assert.Equal(t, int32(tc.code), se.ErrStatus.Code)
		})
	}
}

// TestWatchStartErrorsAreStatusErrors checks that a watch refused with 429 is an error
// from Watch itself, detectable with IsTooManyRequests (re-watch without relisting).
// Diagram: step 1. client-go: reflector.watch (retriable watch-start errors).
func TestWatchStartErrorsAreStatusErrors(t *testing.T) {
	c := serveOnce(t, 429, "application/json",
		`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429,"details":{"retryAfterSeconds":1}}`, nil)

	w, err := c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})

	assert.Nil(t, w)
	assert.True(t, apierrors.IsTooManyRequests(err), "got %v", err)
}

// TestConnectionRefusedStaysDetectable checks that a refused connection keeps its
// ECONNREFUSED through the client's wrapping, for List and for Watch: the reflector
// re-watches without relisting on it.
// Diagram: step 1. client-go: reflector.watch (utilnet.IsConnectionRefused).
func TestConnectionRefusedStaysDetectable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, err := client.New(&client.Config{Server: "http://" + addr}, nil)
	require.NoError(t, err)

	_, listErr := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	_, watchErr := c.Resource(configMaps).Watch(context.Background(), metav1.ListOptions{})

	assert.True(t, utilnet.IsConnectionRefused(listErr), "got %v", listErr)
	assert.True(t, utilnet.IsConnectionRefused(watchErr), "got %v", watchErr)
	assert.ErrorContains(t, listErr, "client: list configmaps")
}

// TestUndecodableSuccessBodiesAreErrors checks that a 200 whose body is not the object
// or list asked for is a clear error, not a zero object.
// Diagram: step 1. client-go: rest.Result.Into.
func TestUndecodableSuccessBodiesAreErrors(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"html", "<html></html>", "not a JSON object"},
		{"no kind", `{"metadata":{}}`, "want a <Kind>List"},
		{"not a list kind", `{"kind":"ConfigMap","apiVersion":"v1"}`, "want a <Kind>List"},
		{"bad apiVersion", `{"kind":"FooList","apiVersion":"a/b/c"}`, "apiVersion"},
		{"items not an array", `{"kind":"ConfigMapList","apiVersion":"v1","items":{}}`, "items is not an array"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serveOnce(t, 200, "application/json", tc.body, nil)

			_, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

			assert.ErrorContains(t, err, tc.want)
		})
	}
}
