package fakeapi_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
)

// continueToken encodes a continue token the way the real server does.
func continueToken(rv int64, start string) string {
	data, _ := json.Marshal(map[string]any{"v": "meta.k8s.io/v1", "rv": rv, "start": start})
	return base64.RawURLEncoding.EncodeToString(data)
}

// TestForgedContinueTokenIsBadRequest: a continue token is checked the way
// the real server checks it, and a bad one is 400 in its words: not base64
// JSON, another encoding version, resourceVersion 0, no start key, or a
// start key that path cleaning would change (one that climbs out of the
// list's prefix, "/../secrets/x").
// Diagram: step 1. client-go: tools/pager (a token is opaque to clients).
func TestForgedContinueTokenIsBadRequest(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	seed(t, s)
	tests := []struct{ name, token, message string }{
		{"not base64 JSON", "garbage", `invalid continue token: continue key is not valid: invalid character '\u0081' looking for beginning of value`},
		{"not base64", "!!", `invalid continue token: continue key is not valid: illegal base64 data at input byte 0`},
		{"other version", base64.RawURLEncoding.EncodeToString([]byte(`{"v":"meta.k8s.io/v2","rv":5,"start":"/a"}`)),
			`invalid continue token: continue key is not valid: server does not recognize this encoded version meta.k8s.io/v2`},
		{"resourceVersion 0", continueToken(0, "/a"),
			`invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`},
		{"no start key", continueToken(5, ""),
			`invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)`},
		{"start key climbing out", continueToken(5, "/../secrets/x"),
			`invalid continue token: continue key is not valid: /../secrets/x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, data := do(t, ts, "GET", cmPath+"?limit=2&continue="+tt.token, "")

			st := requireStatus(t, resp, data, http.StatusBadRequest, metav1.StatusReasonBadRequest)
			assert.Equal(t, tt.message, st.Message)
		})
	}
}

// TestContinueTokenResourceVersionRules: a token ahead of the server is
// 504 ResourceVersionTooLarge; an expired one is 410 with a token that
// continues at the latest state (resourceVersion -1), which lists the rest.
// Diagram: step 1. client-go: tools/pager falls back to a full list on 410.
func TestContinueTokenResourceVersionRules(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := seed(t, s)
	first, err := cms.List(t.Context(), metav1.ListOptions{Limit: 2})
	require.NoError(t, err)
	page := first.(*unstructured.UnstructuredList).GetContinue()

	_, ahead := cms.List(t.Context(), metav1.ListOptions{Limit: 2, Continue: continueToken(99, "/c")})
	mustCreate(t, cms, configMap("default", "f"))
	s.Compact()
	_, expired := cms.List(t.Context(), metav1.ListOptions{Limit: 2, Continue: page})
	require.True(t, apierrors.IsResourceExpired(expired), "got %v", expired)
	offered := expired.(apierrors.APIStatus).Status().ListMeta.Continue
	rest, err := cms.List(t.Context(), metav1.ListOptions{Limit: 10, Continue: offered})
	require.NoError(t, err)

	assert.True(t, apierrors.IsTimeout(ahead), "got %v", ahead)
	assert.Contains(t, expired.Error(), "You can start a new list without the continue parameter, or use the continue token in this response")
	assert.Equal(t, []string{"c", "d", "e", "f"}, names(t, rest), "the rest, at the latest state")
}
