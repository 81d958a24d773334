package fakeapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestNegativeTimeoutSecondsEndsTheWatchAtOnce: the server computes a
// watch's timeout as the real one does, timeoutSeconds times a second; a
// negative result (-1, or a value so large that the product wraps around)
// ends the watch at once, with 200 and no event, never a watch that never
// ends. A value beyond int64 is 400.
// Diagram: step 1. client-go: ListOptions.TimeoutSeconds (the Reflector sends 5-10 minutes).
func TestNegativeTimeoutSecondsEndsTheWatchAtOnce(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	for _, timeout := range []string{"-1", "-86400", "9223372036854775807"} {
		t.Run(timeout, func(t *testing.T) {
			st := openWatch(t, ts, cmPath+"?watch=true&timeoutSeconds="+timeout)

			assert.Equal(t, http.StatusOK, st.resp.StatusCode)
			st.expectEnd(t)
		})
	}
	resp, data := do(t, ts, "GET", cmPath+"?watch=true&timeoutSeconds=9223372036854775808", "")
	st := requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	assert.Equal(t, `strconv.ParseInt: parsing "9223372036854775808": value out of range`, st.Message)
}

// TestNegativeTimeoutSecondsInProcess: the in-process watch follows the
// same rule; 0 there means no timeout (the caller's context bounds it).
// Diagram: step 1. client-go: none.
func TestNegativeTimeoutSecondsInProcess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		cms := s.Resource(configMaps).Namespace("default")
		mustCreate(t, cms, configMap("default", "a"))
		negative := int64(-1)

		w, err := cms.Watch(t.Context(), metav1.ListOptions{TimeoutSeconds: &negative})
		require.NoError(t, err)

		expectClosed(t, w)
	})
}

// TestHTTPWatchWithoutTimeoutEndsAfterTheDefault: an HTTP watch that asks
// for no timeout is given one, between MinRequestTimeout and twice it, as
// kube-apiserver gives one from its --min-request-timeout: no watch stays
// open forever.
// Diagram: step 1. client-go: the Reflector asks for 5-10 minutes itself; kubectl get -w does not.
func TestHTTPWatchWithoutTimeoutEndsAfterTheDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newServer(t, fakeapi.Options{})
		ended := make(chan struct{})
		go func() {
			defer close(ended)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), "GET", cmPath+"?watch=true", nil))
		}()

		time.Sleep(fakeapi.MinRequestTimeout - time.Second)
		synctest.Wait()
		select {
		case <-ended:
			t.Fatal("the watch ended before MinRequestTimeout")
		default:
		}
		time.Sleep(fakeapi.MinRequestTimeout + time.Second)
		synctest.Wait()

		select {
		case <-ended:
		default:
			t.Fatal("the watch outlived twice MinRequestTimeout")
		}
	})
}
