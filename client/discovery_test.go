package client_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/fakeapi"
)

// TestDiscoveryListsGroupsAndResources runs discovery against fakeapi over
// HTTP: the groups (core first), the resources of v1 and of a registered
// group, and 404 NotFound for a group version the server does not serve.
// Diagram: step 1 (before it: which resources exist). client-go: discovery.DiscoveryClient.
func TestDiscoveryListsGroupsAndResources(t *testing.T) {
	api, c := newFakeAPI(t, nil)
	widgets := schema.GroupVersionResource{Group: "demo.informerlab.io", Version: "v1", Resource: "widgets"}
	require.NoError(t, api.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true, HasStatus: true}))

	groups, errGroups := c.ServerGroups(t.Context())
	core, errCore := c.ServerResourcesForGroupVersion(t.Context(), schema.GroupVersion{Version: "v1"})
	demo, errDemo := c.ServerResourcesForGroupVersion(t.Context(), widgets.GroupVersion())
	_, errMissing := c.ServerResourcesForGroupVersion(t.Context(), schema.GroupVersion{Group: "nosuch.io", Version: "v1"})

	require.NoError(t, errGroups)
	require.NotEmpty(t, groups.Groups)
	assert.Equal(t, "", groups.Groups[0].Name, "the core group first")
	assert.Equal(t, "v1", groups.Groups[0].PreferredVersion.GroupVersion)
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	assert.Contains(t, names, "demo.informerlab.io")
	require.NoError(t, errCore)
	var resources []string
	for _, r := range core.APIResources {
		resources = append(resources, r.Name)
	}
	assert.Contains(t, resources, "configmaps")
	require.NoError(t, errDemo)
	assert.Equal(t, "demo.informerlab.io/v1", demo.GroupVersion)
	assert.True(t, apierrors.IsNotFound(errMissing), "got %v", errMissing)
	assert.False(t, errors.Is(errMissing, client.ErrNotAPIServer), "a missing group is not a missing server")
}

// TestDiscoveryRecognisesServersThatAreNotKubernetes points discovery at
// servers that are not API servers: one answering 404 everywhere, one
// answering an HTML page, one answering some other JSON. Each error wraps
// ErrNotAPIServer and says what came back; a server that answers /api with
// 401 is an API server that refuses us, not a stranger.
// Diagram: step 1. client-go: discovery.DiscoveryClient.ServerGroups.
func TestDiscoveryRecognisesServersThatAreNotKubernetes(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		code                    int
		want                    string
	}{
		{"404 everywhere", "text/plain", "404 page not found", http.StatusNotFound, "GET http"},
		{"an HTML page", "text/html", "<html><body>Welcome</body></html>", http.StatusOK, "a body that is not JSON"},
		{"other JSON", "application/json", `{"status":"ok"}`, http.StatusOK, `JSON of kind ""`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := serveOnce(t, tc.code, tc.contentType, tc.body, nil)

			_, err := c.ServerGroups(t.Context())

			require.Error(t, err)
			assert.ErrorIs(t, err, client.ErrNotAPIServer)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	refusing := serveOnce(t, http.StatusUnauthorized, "application/json",
		`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`, nil)
	_, err := refusing.ServerGroups(t.Context())
	assert.True(t, apierrors.IsUnauthorized(err), "got %v", err)
	assert.NotErrorIs(t, err, client.ErrNotAPIServer)
}

// TestDiscoveryKeepsTheServerURLPath checks that a server URL with a path
// prefix (an API server behind a proxy) is kept in front of /api.
// Diagram: step 1. client-go: rest.Config.Host with a path.
func TestDiscoveryKeepsTheServerURLPath(t *testing.T) {
	api := fakeapi.New(fakeapi.Options{})
	defer api.Close()
	mux := http.NewServeMux()
	mux.Handle("/prefix/", http.StripPrefix("/prefix", api.Handler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c, err := client.New(&client.Config{Server: srv.URL + "/prefix"}, nil)
	require.NoError(t, err)

	groups, err := c.ServerGroups(t.Context())

	require.NoError(t, err)
	assert.Equal(t, "", groups.Groups[0].Name)
}
