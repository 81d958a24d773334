package fakeapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestHTTPDiscovery checks the legacy discovery documents kubectl and
// client-go's discovery client read, and /version and the health endpoints.
// Diagram: API. client-go: discovery.DiscoveryClient.
func TestHTTPDiscovery(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	aggregated := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

	var api metav1.APIVersions
	resp := get(t, ts, "/api", aggregated, &api)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "plain JSON makes kubectl fall back to legacy discovery")
	assert.Equal(t, "APIVersions", api.Kind)
	assert.Equal(t, []string{"v1"}, api.Versions)
	require.Len(t, api.ServerAddressByClientCIDRs, 1)

	var groups metav1.APIGroupList
	get(t, ts, "/apis", aggregated, &groups)
	require.Len(t, groups.Groups, 1)
	assert.Equal(t, "coordination.k8s.io", groups.Groups[0].Name)
	assert.Equal(t, "coordination.k8s.io/v1", groups.Groups[0].PreferredVersion.GroupVersion)

	var group metav1.APIGroup
	get(t, ts, "/apis/coordination.k8s.io", "", &group)
	assert.Equal(t, "APIGroup", group.Kind)

	var core metav1.APIResourceList
	get(t, ts, "/api/v1", "", &core)
	assert.Equal(t, "v1", core.GroupVersion)
	byName := map[string]metav1.APIResource{}
	for _, r := range core.APIResources {
		byName[r.Name] = r
	}
	cm := byName["configmaps"]
	assert.Equal(t, "configmap", cm.SingularName)
	assert.True(t, cm.Namespaced)
	assert.Equal(t, "ConfigMap", cm.Kind)
	assert.Equal(t, []string{"cm"}, cm.ShortNames)
	assert.Contains(t, cm.Verbs, "watch")
	assert.False(t, byName["namespaces"].Namespaced)
	assert.Equal(t, metav1.Verbs{"get", "patch", "update"}, byName["namespaces/status"].Verbs)

	var leases metav1.APIResourceList
	get(t, ts, "/apis/coordination.k8s.io/v1", "", &leases)
	require.Len(t, leases.APIResources, 1)
	assert.Equal(t, "Lease", leases.APIResources[0].Kind)

	var v version.Info
	get(t, ts, "/version", "", &v)
	assert.Equal(t, "1", v.Major)
	for _, p := range []string{"/healthz", "/livez", "/readyz", "/readyz/ping"} {
		r, body := do(t, ts, "GET", p, "")
		assert.Equal(t, http.StatusOK, r.StatusCode, p)
		assert.Equal(t, "ok", string(body), p)
	}
	r, body := do(t, ts, "GET", "/openapi/v2", "")
	requireStatus(t, r, body, http.StatusNotFound, metav1.StatusReasonNotFound)
	r, body = do(t, ts, "GET", "/openapi/v3", "")
	assert.Equal(t, http.StatusOK, r.StatusCode, "OpenAPI v3: http_openapi_test.go") // kubectl validates against it
	assert.Contains(t, string(body), `"api/v1"`)
}

// TestHTTPDiscoveryIncludesRegisteredResources checks that Register shows up
// in discovery (a demo's custom resource).
// Diagram: API. client-go: discovery-driven RESTMapper.
func TestHTTPDiscoveryIncludesRegisteredResources(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true, ShortNames: []string{"wd"}}))

	var groups metav1.APIGroupList
	get(t, ts, "/apis", "", &groups)
	var res metav1.APIResourceList
	get(t, ts, "/apis/demo.informerlab.io/v1", "", &res)

	assert.Len(t, groups.Groups, 2)
	require.Len(t, res.APIResources, 1)
	assert.Equal(t, "widget", res.APIResources[0].SingularName)
	assert.Equal(t, []string{"wd"}, res.APIResources[0].ShortNames)
}

// get GETs path and decodes the 200 response into into.
func get(t *testing.T, ts *httptest.Server, path, accept string, into any) *http.Response {
	t.Helper()
	resp, data := do(t, ts, "GET", path, "", "Accept", accept)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	require.NoError(t, json.Unmarshal(data, into), string(data))
	return resp
}
