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
	assert.Equal(t, "1", table.ResourceVersion)
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
