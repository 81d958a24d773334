package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/client"
)

// A list is checked against what was asked for, as watch events are: its
// apiVersion must be the resource's, and every item that names its kind must
// name the list's item kind. A hostile or broken server cannot put a Secret
// into a ConfigMap cache through a list, typed or unstructured.
// Diagram: step 1. client-go: none (list items are taken as the list says).
func TestListItemsMustBeOfTheListsKind(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"a Secret in a ConfigMapList",
			`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[` +
				`{"metadata":{"name":"ok","namespace":"ns"}},` +
				`{"kind":"Secret","apiVersion":"v1","metadata":{"name":"token","namespace":"ns"},"data":{"t":"c2VjcmV0"}}]}`,
			`client: list configmaps: item 1 (ns/token) is a v1 Secret, not a ConfigMap in a ConfigMapList`},
		{"an item of another group",
			`{"kind":"ConfigMapList","apiVersion":"v1","items":[{"kind":"ConfigMap","apiVersion":"example.com/v1","metadata":{"name":"x"}}]}`,
			`item 0 (/x) is a example.com/v1 ConfigMap, not a ConfigMap in a ConfigMapList`},
		{"a list of another group",
			`{"kind":"DeploymentList","apiVersion":"apps/v1","items":[]}`,
			`list response is a apps/v1 DeploymentList, not of the resource's group and version "v1"`},
	}
	for _, scheme := range []string{"typed", "unstructured"} {
		for _, tc := range cases {
			t.Run(scheme+"/"+tc.name, func(t *testing.T) {
				c := serveOnce(t, 200, "application/json", tc.body, nil)
				if scheme == "typed" {
					c = serveOnceWithScheme(t, tc.body)
				}

				list, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

				assert.Nil(t, list)
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
			})
		}
	}
}

// The list is read as a stream, and what a server may send in any order still
// decodes: items before the kind, unknown top-level fields, a null items.
// Diagram: step 1. client-go: rest.Result.Into.
func TestListDecodesWhateverTheFieldOrder(t *testing.T) {
	cases := map[string]struct {
		body  string
		items int
	}{
		"items first":        {`{"items":[{"metadata":{"name":"a","namespace":"ns"}}],"metadata":{"resourceVersion":"5"},"apiVersion":"v1","kind":"ConfigMapList"}`, 1},
		"unknown fields":     {`{"kind":"ConfigMapList","apiVersion":"v1","extra":{"x":[1,2]},"metadata":{"resourceVersion":"5"},"items":[]}`, 0},
		"null items":         {`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":null}`, 0},
		"no items":           {`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"}}`, 0},
		"trailing newline":   {`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[]}` + "\n", 0},
		"kinds on the items": {`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}]}`, 1},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c := serveOnce(t, 200, "application/json", tc.body, nil)

			got, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

			require.NoError(t, err)
			list := got.(*unstructured.UnstructuredList)
			assert.Equal(t, "5", list.GetResourceVersion())
			assert.Len(t, list.Items, tc.items)
			for _, item := range list.Items {
				assert.Equal(t, "ConfigMap", item.GetKind())
				assert.Equal(t, "v1", item.GetAPIVersion())
			}
		})
	}
	c := serveOnce(t, 200, "application/json", `{"kind":"ConfigMapList","apiVersion":"v1","items":[]} {}`, nil)
	_, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	assert.ErrorContains(t, err, "after the list", "a second JSON value after the list is refused")
}

// answer is a handler that always answers 200 with body as JSON.
func answer(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, body)
	})
}

// serveOnceWithScheme is a client with the typed ConfigMap scheme, answered by body.
func serveOnceWithScheme(t *testing.T, body string) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, newScheme())
	require.NoError(t, err)
	client.ServeInProcess(c, answer(body))
	return c
}

// Whatever bytes a server answers a list with, List returns a list or an
// error: it never panics, and a list it returns holds only ConfigMaps.
// Diagram: step 1. client-go: none.
func FuzzListDecoder(f *testing.F) {
	for _, seed := range []string{
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}]}`,
		`{"items":[{"kind":"Secret","apiVersion":"v1","metadata":{"name":"a"}}],"kind":"ConfigMapList","apiVersion":"v1"}`,
		`{"kind":"ConfigMapList","apiVersion":"v1","items":[null,1,"x",[]]}`,
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":null,"items":{}}`,
		`{"kind":"ConfigMapList","apiVersion":"v1","items":[{"metadata":{"name":"a","creationTimestamp":"x"},"data":{"k":5}}]}`,
		`[]`, `null`, ``, `{`, `{"kind":`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, c := range []*client.Client{serveOnce(t, 200, "application/json", body, nil), serveOnceWithScheme(t, body)} {
			got, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
			if err != nil {
				require.Nil(t, got)
				continue
			}
			items, err := meta.ExtractList(got)
			require.NoError(t, err)
			for _, item := range items {
				assert.Equal(t, "ConfigMap", item.GetObjectKind().GroupVersionKind().Kind)
			}
		}
	})
}
