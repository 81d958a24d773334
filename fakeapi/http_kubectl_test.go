package fakeapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestHTTPTableForKubectlGet checks Table output: columns for the resource,
// one row per object with the requested includeObject, and the list's
// resourceVersion.
// Diagram: API. kubectl: get's human-readable printer reads server-side Tables.
func TestHTTPTableForKubectlGet(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	mustCreate(t, s.Resource(configMaps).Namespace("default"), configMap("default", "a"))

	var table metav1.Table
	get(t, ts, cmPath, kubectlAccept, &table)
	var one metav1.Table
	get(t, ts, cmPath+"/a?includeObject=Object", kubectlAccept, &one)
	var none metav1.Table
	get(t, ts, cmPath+"?includeObject=None", kubectlAccept, &none)

	assert.Equal(t, "Table", table.Kind)
	assert.Equal(t, "meta.k8s.io/v1", table.APIVersion)
	assert.Equal(t, "2", table.ResourceVersion)
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	assert.Equal(t, []string{"Name", "Data", "Age"}, cols)
	require.Len(t, table.Rows, 1)
	assert.Equal(t, "a", table.Rows[0].Cells[0])
	assert.Equal(t, float64(1), table.Rows[0].Cells[1])
	var pom metav1.PartialObjectMetadata
	require.NoError(t, json.Unmarshal(table.Rows[0].Object.Raw, &pom))
	assert.Equal(t, "PartialObjectMetadata", pom.Kind)
	assert.Equal(t, "a", pom.Name)
	var full map[string]any
	require.NoError(t, json.Unmarshal(one.Rows[0].Object.Raw, &full))
	assert.Equal(t, map[string]any{"k": "v"}, full["data"])
	assert.Nil(t, none.Rows[0].Object.Raw)
}

// TestHTTPKubectlShapedSession replays what kubectl 1.32 sends for
// "get cm", "get cm -w", "create -f", "label" and "delete": discovery with
// the aggregated Accept (answered in the legacy shape), a Table list, a
// Table watch whose first event alone carries the columns, a JSON create, a
// strategic-merge-patch label and a DELETE with a DeleteOptions body.
// Diagram: API. kubectl: the request sequence seen against a real apiserver.
func TestHTTPKubectlShapedSession(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	aggregated := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

	var api metav1.APIVersions
	get(t, ts, "/api", aggregated, &api)
	var groups metav1.APIGroupList
	get(t, ts, "/apis", aggregated, &groups)
	var core metav1.APIResourceList
	get(t, ts, "/api/v1", "", &core)

	var table metav1.Table
	get(t, ts, cmPath+"?limit=500", kubectlAccept, &table)
	assert.Empty(t, table.Rows)

	watch := openWatch(t, ts, cmPath+"?resourceVersion="+table.ResourceVersion+"&watch=true", "Accept", kubectlAccept)

	resp, data := do(t, ts, "POST", cmPath+"?fieldManager=kubectl-create&fieldValidation=Strict", fmt.Sprintf(cmJSON, "web"),
		"Content-Type", "application/json", "Accept", "application/json")
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	resp, data = do(t, ts, "PATCH", cmPath+"/web?fieldManager=kubectl-label", `{"metadata":{"labels":{"tier":"frontend"}}}`,
		"Content-Type", "application/strategic-merge-patch+json", "Accept", "application/json")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	resp, data = do(t, ts, "DELETE", cmPath+"/web", `{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}`,
		"Content-Type", "application/json", "Accept", "application/json")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))

	for i, want := range []string{"ADDED", "MODIFIED", "DELETED"} {
		typ, obj := watch.next(t)
		assert.Equal(t, want, typ)
		assert.Equal(t, "Table", obj["kind"])
		_, hasCols := obj["columnDefinitions"].([]any)
		assert.Equal(t, i == 0, hasCols, "only the first watch event carries column definitions")
		rows := obj["rows"].([]any)
		require.Len(t, rows, 1)
		assert.Equal(t, "web", rows[0].(map[string]any)["cells"].([]any)[0])
	}
}

// TestHTTPTableColumnsPerResource checks the columns kubectl shows for each
// built-in resource and for a registered one (Name and Age, like a CRD
// without printer columns).
// Diagram: API. kubectl: get prints the server's columns.
func TestHTTPTableColumnsPerResource(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget"}))
	ts := httpServer(t, s)
	do(t, ts, "POST", "/api/v1/namespaces", `{"metadata":{"name":"team","labels":{"team":"a"}}}`)
	do(t, ts, "POST", "/api/v1/namespaces/default/events", `{"metadata":{"name":"e1"},"type":"Warning","reason":"Boom","message":"it broke",
		"involvedObject":{"kind":"ConfigMap","name":"web"},"lastTimestamp":"2020-01-01T00:00:00Z"}`)
	do(t, ts, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"l"},"spec":{"holderIdentity":"pod-1"}}`)
	do(t, ts, "POST", "/apis/demo.informerlab.io/v1/widgets", `{"metadata":{"name":"w"}}`)

	tests := []struct {
		path      string
		columns   []string
		firstCell []any
	}{
		{"/api/v1/namespaces?labelSelector=team", []string{"Name", "Status", "Age"}, []any{"team", "Active"}},
		{"/api/v1/namespaces/default/events", []string{"Last Seen", "Type", "Reason", "Object", "Message"}, []any{nil, "Warning", "Boom", "configmap/web", "it broke"}},
		{"/apis/coordination.k8s.io/v1/namespaces/default/leases", []string{"Name", "Holder", "Age"}, []any{"l", "pod-1"}},
		{"/apis/demo.informerlab.io/v1/widgets", []string{"Name", "Age"}, []any{"w"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var table metav1.Table
			get(t, ts, tt.path, kubectlAccept, &table)

			var cols []string
			for _, c := range table.ColumnDefinitions {
				cols = append(cols, c.Name)
			}
			assert.Equal(t, tt.columns, cols)
			require.Len(t, table.Rows, 1)
			for i, want := range tt.firstCell {
				if want != nil {
					assert.Equal(t, want, table.Rows[0].Cells[i], "cell %d", i)
				}
			}
		})
	}
}

// TestEventFieldSelectors checks the extra field selectors events support.
// Diagram: step 1. client-go: kubectl events --for uses involvedObject fields.
func TestEventFieldSelectors(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	for i, target := range []string{"web", "db"} {
		body := fmt.Sprintf(`{"metadata":{"name":"e%d"},"type":"Normal","involvedObject":{"kind":"ConfigMap","name":"%s"}}`, i, target)
		resp, data := do(t, ts, "POST", "/api/v1/namespaces/default/events", body)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
	}

	_, data := do(t, ts, "GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Ddb,type%3DNormal", "")
	resp, bad := do(t, ts, "GET", "/api/v1/namespaces/default/configmaps?fieldSelector=involvedObject.name%3Ddb", "")

	items := asMap(t, data)["items"].([]any)
	require.Len(t, items, 1)
	assert.Equal(t, "e1", objName(items[0].(map[string]any)))
	st := requireStatus(t, resp, bad, http.StatusBadRequest, metav1.StatusReasonBadRequest)
	assert.Equal(t, "field label not supported: involvedObject.name", st.Message)
}

// TestHTTPRootListsPaths checks GET / lists the served paths, as the real
// server does, and that Resources reports what discovery shows.
// Diagram: API. client-go: none.
func TestHTTPRootListsPaths(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	var root struct{ Paths []string }
	get(t, ts, "/", "", &root)

	assert.Contains(t, root.Paths, "/api/v1")
	assert.Contains(t, root.Paths, "/apis/coordination.k8s.io/v1")
	assert.Len(t, s.Resources(), 4)
}
