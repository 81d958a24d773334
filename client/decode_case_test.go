package client_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/client"
)

// smuggled is a ConfigMap whose data is given twice: "data" as the API server
// stores it, "Data" as only a case-insensitive reader would take it.
const smuggled = `"metadata":{"name":"cm","namespace":"ns","resourceVersion":"7"},"data":{"k":"stored"},"Data":{"k":"smuggled"}`

// typedClient is a client with the typed ConfigMap scheme that gets code and
// body in answer to every request.
func typedClient(t *testing.T, code int, body string) *client.Client {
	t.Helper()
	c, err := client.New(&client.Config{Server: "http://in-process.test", Logger: slog.New(slog.DiscardHandler)}, newScheme())
	require.NoError(t, err)
	client.ServeInProcess(c, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}))
	return c
}

// Every decoder of the client matches a key to a field only in its own case,
// as the API server does: {"data":...,"Data":...} is read as the "data" the
// server stored, never as the "Data" that encoding/json would take (it matches
// keys case-insensitively, the last one winning). This holds for a get's
// object, its kind, a list's metadata and items, a watch event's type and
// object, an error's Status and a discovery document.
// Diagram: step 1. client-go: the JSON serializer (sigs.k8s.io/json, case-sensitive).
func TestEveryDecoderReadsKeysInTheirOwnCaseOnly(t *testing.T) {
	t.Run("get", func(t *testing.T) {
		c := typedClient(t, 200, `{"kind":"ConfigMap","apiVersion":"v1",`+smuggled+`}`)

		obj, err := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{})

		require.NoError(t, err)
		require.IsType(t, &ConfigMap{}, obj)
		assert.Equal(t, "stored", obj.(*ConfigMap).Data["k"])
	})
	t.Run("get, kind", func(t *testing.T) {
		c := typedClient(t, 200, `{"kind":"ConfigMap","apiVersion":"v1","Kind":"Secret",`+smuggled+`}`)

		obj, err := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{})

		require.NoError(t, err)
		assert.IsType(t, &ConfigMap{}, obj, "the object is the ConfigMap its \"kind\" says")
	})
	t.Run("list", func(t *testing.T) {
		c := typedClient(t, 200, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5","ResourceVersion":"1"},"items":[{`+smuggled+`}]}`)

		got, err := c.Resource(configMaps).List(context.Background(), metav1.ListOptions{})

		require.NoError(t, err)
		list := got.(*ConfigMapList)
		assert.Equal(t, "5", list.ResourceVersion)
		require.Len(t, list.Items, 1)
		assert.Equal(t, "stored", list.Items[0].Data["k"])
	})
	t.Run("watch", func(t *testing.T) {
		stream := `{"type":"ADDED","Type":"DELETED","object":{"kind":"ConfigMap","apiVersion":"v1",` + smuggled + `}}` + "\n"

		events := decodeStream(t, stream, client.MaxWatchEventBytes)

		require.Len(t, events, 1)
		assert.Equal(t, watch.Added, events[0].Type)
		require.IsType(t, &ConfigMap{}, events[0].Object)
		assert.Equal(t, "stored", events[0].Object.(*ConfigMap).Data["k"])
	})
	t.Run("error status", func(t *testing.T) {
		c := typedClient(t, 409, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Conflict","Reason":"NotFound","code":409}`)

		_, err := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{})

		assert.True(t, apierrors.IsConflict(err), "got %v", err)
		assert.False(t, apierrors.IsNotFound(err))
	})
	t.Run("discovery", func(t *testing.T) {
		c := typedClient(t, 200, `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"v1","resources":[`+
			`{"name":"configmaps","namespaced":true,"kind":"ConfigMap","Kind":"Secret","verbs":["list"]}]}`)

		list, err := c.ServerResourcesForGroupVersion(context.Background(), schema.GroupVersion{Version: "v1"})

		require.NoError(t, err)
		require.Len(t, list.APIResources, 1)
		assert.Equal(t, "ConfigMap", list.APIResources[0].Kind)
	})
}

// An object that gives its kind twice is refused, in a get and in a watch
// event: which kind it "is" would depend on the reader (the last key for
// encoding/json and the API server's own decoding, possibly the first for
// another program), and a check that read one while the decoder used the other
// would let a Secret through as a ConfigMap.
// Diagram: step 1. client-go: none (its decoder keeps the last key; strict
// decoding, as the API server's fieldValidation=Strict, reports the duplicate).
func TestAnObjectThatNamesItsKindTwiceIsRefused(t *testing.T) {
	twice := `{"kind":"ConfigMap","apiVersion":"v1","kind":"Secret",` + smuggled + `}`
	c := typedClient(t, 200, twice)

	obj, getErr := c.Resource(configMaps).Namespace("ns").Get(context.Background(), "cm", metav1.GetOptions{})
	events := decodeStream(t, `{"type":"ADDED","object":`+twice+`}`+"\n", client.MaxWatchEventBytes)

	assert.Nil(t, obj)
	assert.ErrorContains(t, getErr, `client: response: duplicate field "kind"`)
	require.Len(t, events, 1)
	assertDecodeErrorEvent(t, events[0], `duplicate field "kind"`)
}
