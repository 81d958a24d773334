package fakeapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/fakeapi"
)

// gadget is a Go type registered as a resource, the way samplecontroller
// registers Foo.
type gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              gadgetSpec `json:"spec"`
}

type gadgetSpec struct {
	Colour string         `json:"colour" description:"The gadget's colour."`
	Size   *int32         `json:"size,omitempty"`
	Parts  []gadgetPart   `json:"parts,omitempty" patchStrategy:"merge" patchMergeKey:"name"`
	Tags   []string       `json:"tags,omitempty"`
	Extra  runtime.Object `json:"-"`
}

type gadgetPart struct {
	Name  string `json:"name"`
	Count int    `json:"count,omitempty"`
}

func (g *gadget) DeepCopyObject() runtime.Object { c := *g; return &c }

var gadgets = schema.GroupVersionResource{Group: "toys.informerlab.io", Version: "v1", Resource: "gadgets"}

func registerGadgets(t *testing.T, s *fakeapi.Server) {
	t.Helper()
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: gadgets, Kind: "Gadget", Namespaced: true, HasStatus: true, Object: &gadget{}}))
}

// openAPIIndex fetches /openapi/v3 and returns each group version's URL.
func openAPIIndex(t *testing.T, ts interface{ Client() *http.Client }, base string) map[string]string {
	t.Helper()
	resp, err := ts.Client().Get(base + "/openapi/v3")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	require.NoError(t, jsonDecode(resp.Body, &index))
	out := map[string]string{}
	for k, v := range index.Paths {
		out[k] = v.ServerRelativeURL
	}
	return out
}

// TestOpenAPIIndexListsEveryGroupVersionUnderAHashedURL: /openapi/v3 names
// one document per group version served, at a URL whose hash changes when
// the document does (a resource registered later shows up at once, under a
// new URL, so no client keeps a stale copy).
// Diagram: API. client-go: openapi.Client.Paths (kubectl's first request for validation and explain).
func TestOpenAPIIndexListsEveryGroupVersionUnderAHashedURL(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)

	before := openAPIIndex(t, ts, ts.URL)
	registerGadgets(t, s)
	after := openAPIIndex(t, ts, ts.URL)
	resp, data := do(t, ts, "GET", before["api/v1"], "")

	assert.ElementsMatch(t, []string{"api/v1", "apis/coordination.k8s.io/v1"}, keysOf(before))
	assert.ElementsMatch(t, []string{"api/v1", "apis/coordination.k8s.io/v1", "apis/toys.informerlab.io/v1"}, keysOf(after))
	assert.Regexp(t, `^/openapi/v3/api/v1\?hash=[0-9A-F]{128}$`, before["api/v1"])
	assert.Equal(t, before["api/v1"], after["api/v1"], "an unchanged document keeps its URL")
	require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	assert.Equal(t, "3.0.0", asMap(t, data)["openapi"])
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestOpenAPIPatchOperationsAdvertiseFieldValidation checks what kubectl
// checks before it leaves validation to the server: for every kind, the
// document has a PATCH operation tagged with the kind that lists the
// fieldValidation query parameter; and, for kubectl explain, a component
// schema tagged with the kind.
// Diagram: API. client-go: none (kubectl's queryParamVerifierV3, explain's plaintext template).
func TestOpenAPIPatchOperationsAdvertiseFieldValidation(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	registerGadgets(t, s)
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget"}))
	ts := httpServer(t, s)
	index := openAPIIndex(t, ts, ts.URL)

	for _, res := range s.Resources() {
		gv := res.GVR.GroupVersion()
		path := "api/" + gv.Version
		if gv.Group != "" {
			path = "apis/" + gv.String()
		}
		_, data := do(t, ts, "GET", index[path], "")
		doc := asMap(t, data)
		gvk := map[string]any{"group": gv.Group, "version": gv.Version, "kind": res.Kind}

		var patchParams []string
		for _, p := range doc["paths"].(map[string]any) {
			op, _ := p.(map[string]any)["patch"].(map[string]any)
			if op == nil || !assert.ObjectsAreEqual(gvk, op["x-kubernetes-group-version-kind"]) {
				continue
			}
			for _, param := range op["parameters"].([]any) {
				pm := param.(map[string]any)
				patchParams = append(patchParams, pm["in"].(string)+":"+pm["name"].(string))
			}
			break
		}
		tagged := 0
		for _, sch := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
			for _, g := range asList(sch.(map[string]any)["x-kubernetes-group-version-kind"]) {
				if assert.ObjectsAreEqual(gvk, g) {
					tagged++
				}
			}
		}

		assert.Contains(t, patchParams, "query:fieldValidation", "%v", res.GVR)
		assert.Equal(t, 1, tagged, "one schema for %v", res.Kind)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// schemaOf returns the component schema tagged with kind in a document.
func schemaOf(t *testing.T, doc map[string]any, kind string) (string, map[string]any) {
	t.Helper()
	for name, sch := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
		for _, g := range asList(sch.(map[string]any)["x-kubernetes-group-version-kind"]) {
			if g.(map[string]any)["kind"] == kind {
				return name, sch.(map[string]any)
			}
		}
	}
	require.FailNow(t, "no schema for "+kind)
	return "", nil
}

// TestOpenAPISchemasComeFromGoTypes: a built-in kind's schema has the real
// server's name and fields; a registered Go type's fields, json names,
// required fields, descriptions and patch tags become its schema; a
// resource without a Go type gets an open schema.
// Diagram: API. client-go: none (kube-openapi generates the real server's schemas from Go types the same way).
func TestOpenAPISchemasComeFromGoTypes(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	registerGadgets(t, s)
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget"}))
	ts := httpServer(t, s)
	index := openAPIIndex(t, ts, ts.URL)
	doc := func(path string) map[string]any {
		_, data := do(t, ts, "GET", index[path], "")
		return asMap(t, data)
	}

	core := doc("api/v1")
	cmName, cm := schemaOf(t, core, "ConfigMap")
	toys := doc("apis/toys.informerlab.io/v1")
	gName, g := schemaOf(t, toys, "Gadget")
	spec := toys["components"].(map[string]any)["schemas"].(map[string]any)[strings.TrimPrefix(
		g["properties"].(map[string]any)["spec"].(map[string]any)["allOf"].([]any)[0].(map[string]any)["$ref"].(string), "#/components/schemas/")].(map[string]any)
	_, widget := schemaOf(t, doc("apis/demo.informerlab.io/v1"), "Widget")

	assert.Equal(t, "io.k8s.api.core.v1.ConfigMap", cmName)
	props := cm["properties"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "string"}, props["data"].(map[string]any)["additionalProperties"])
	assert.Equal(t, "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		props["metadata"].(map[string]any)["allOf"].([]any)[0].(map[string]any)["$ref"])
	assert.Contains(t, core["components"].(map[string]any)["schemas"], "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	assert.Equal(t, "com.github.informerlab.informerlab.fakeapi_test.gadget", gName)
	sp := spec["properties"].(map[string]any)
	assert.Equal(t, []any{"colour"}, spec["required"])
	assert.Equal(t, "The gadget's colour.", sp["colour"].(map[string]any)["description"])
	assert.Equal(t, map[string]any{"type": "integer", "format": "int32"}, sp["size"])
	assert.Equal(t, "merge", sp["parts"].(map[string]any)["x-kubernetes-patch-strategy"])
	assert.Equal(t, "name", sp["parts"].(map[string]any)["x-kubernetes-patch-merge-key"])
	assert.NotContains(t, sp, "Extra")
	assert.Equal(t, true, widget["x-kubernetes-preserve-unknown-fields"])
}

// TestOpenAPIRevalidationAndNegotiation: a client that has a document sends
// its ETag and gets 304; a client that will only take protobuf gets 406;
// /openapi/v2 and unknown group versions are 404.
// Diagram: API. client-go: openapi.GroupVersion.Schema (JSON only here).
func TestOpenAPIRevalidationAndNegotiation(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	ts := httpServer(t, s)
	u := openAPIIndex(t, ts, ts.URL)["api/v1"]
	first, _ := do(t, ts, "GET", u, "")

	again, _ := do(t, ts, "GET", u, "", "If-None-Match", first.Header.Get("ETag"))
	proto, protoData := do(t, ts, "GET", u, "", "Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf")
	v2, v2Data := do(t, ts, "GET", "/openapi/v2", "")
	other, otherData := do(t, ts, "GET", "/openapi/v3/apis/nope/v1", "")

	assert.NotEmpty(t, first.Header.Get("ETag"))
	assert.Equal(t, http.StatusNotModified, again.StatusCode)
	requireStatus(t, proto, protoData, http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable)
	requireStatus(t, v2, v2Data, http.StatusNotFound, metav1.StatusReasonNotFound)
	requireStatus(t, other, otherData, http.StatusNotFound, metav1.StatusReasonNotFound)
}

// TestOpenAPINeedsTheToken: like the rest of the API, and unlike /version,
// the documents are served only to an authenticated client.
// Diagram: API. client-go: rest.Config.BearerToken.
func TestOpenAPINeedsTheToken(t *testing.T) {
	s := newServer(t, fakeapi.Options{Token: "secret"})
	ts := httpServer(t, s)

	anon, anonData := do(t, ts, "GET", "/openapi/v3", "")
	ok, _ := do(t, ts, "GET", "/openapi/v3", "", "Authorization", "Bearer secret")

	requireStatus(t, anon, anonData, http.StatusUnauthorized, metav1.StatusReasonUnauthorized)
	assert.Equal(t, http.StatusOK, ok.StatusCode)
}
