package fakeapi_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestRemovingLastFinalizerAnswersWithTheReplacedResourceVersion checks
// the write that removes the last finalizer of an object being deleted, by
// patch and by update: the object is gone, the write's answer is the object
// at the resourceVersion the write replaced (the real server never stores
// a new version of it, so it reports none), and the DELETED event that
// watches get carries the deletion's new resourceVersion.
// Diagram: API. client-go: none (kube-apiserver genericregistry.Store.Update, deleteWithoutFinalizers).
func TestRemovingLastFinalizerAnswersWithTheReplacedResourceVersion(t *testing.T) {
	for _, how := range []string{"patch", "update"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := newServer(t, fakeapi.Options{})
				cms := s.Resource(configMaps).Namespace("default")
				obj := configMap("default", "a")
				obj.SetFinalizers([]string{"example.com/cleanup"})
				mustCreate(t, cms, obj)
				require.NoError(t, cms.Delete(context.Background(), "a", metav1.DeleteOptions{}))
				marked := mustGet(t, cms, "a")
				w, err := cms.Watch(t.Context(), metav1.ListOptions{ResourceVersion: marked.GetResourceVersion()})
				require.NoError(t, err)
				defer w.Stop()

				var out any
				if how == "patch" {
					out, err = cms.Patch(context.Background(), "a", types.MergePatchType,
						[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
				} else {
					unfinalized := marked.DeepCopy()
					unfinalized.SetFinalizers(nil)
					out, err = cms.Update(context.Background(), unfinalized, metav1.UpdateOptions{})
				}

				require.NoError(t, err)
				answer := out.(*unstructured.Unstructured)
				assert.Equal(t, marked.GetResourceVersion(), answer.GetResourceVersion(), "the answer carries the replaced resourceVersion")
				assert.Empty(t, answer.GetFinalizers())
				assert.NotNil(t, answer.GetDeletionTimestamp())
				_, errGet := cms.Get(context.Background(), "a", metav1.GetOptions{})
				assert.True(t, apierrors.IsNotFound(errGet), "the object is gone: %v", errGet)
				deletionRV := s.CurrentResourceVersion()
				assert.Equal(t, "DELETED a@"+strconv.FormatUint(deletionRV, 10), nameRV(next(t, w)), "the event carries the deletion's resourceVersion")
				assert.NotEqual(t, marked.GetResourceVersion(), strconv.FormatUint(deletionRV, 10))
			})
		})
	}
}

// TestHTTPRemovingLastFinalizerAnswersWithTheReplacedResourceVersion is the
// same over HTTP: a PATCH and a PUT that remove the last finalizer answer
// 200 with the object at its old resourceVersion, and the watch's DELETED
// event carries a newer one.
// Diagram: API. client-go: none (kube-apiserver deleteWithoutFinalizers).
func TestHTTPRemovingLastFinalizerAnswersWithTheReplacedResourceVersion(t *testing.T) {
	for _, method := range []string{"PATCH", "PUT"} {
		t.Run(method, func(t *testing.T) {
			s := newServer(t, fakeapi.Options{})
			ts := httpServer(t, s)
			resp, data := do(t, ts, "POST", cmPath, `{"metadata":{"name":"f","finalizers":["example.com/x"]}}`)
			require.Equal(t, http.StatusCreated, resp.StatusCode, string(data))
			resp, data = do(t, ts, "DELETE", cmPath+"/f", "")
			require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
			markedRV := objRV(asMap(t, data))
			st := openWatch(t, ts, cmPath+"?watch=true&resourceVersion="+markedRV)

			if method == "PATCH" {
				resp, data = do(t, ts, "PATCH", cmPath+"/f", `{"metadata":{"finalizers":null}}`,
					"Content-Type", "application/merge-patch+json")
			} else {
				resp, data = do(t, ts, "PUT", cmPath+"/f",
					`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"f","resourceVersion":"`+markedRV+`"}}`)
			}

			require.Equal(t, http.StatusOK, resp.StatusCode, string(data))
			answer := asMap(t, data)
			assert.Equal(t, markedRV, objRV(answer), "the answer carries the replaced resourceVersion")
			assert.NotContains(t, answer["metadata"], "finalizers")
			typ, obj := st.next(t)
			assert.Equal(t, string(watch.Deleted), typ)
			assert.Equal(t, strconv.FormatUint(s.CurrentResourceVersion(), 10), objRV(obj), "the event carries the deletion's resourceVersion")
			assert.NotEqual(t, markedRV, objRV(obj))
			resp, data = do(t, ts, "GET", cmPath+"/f", "")
			requireStatus(t, resp, data, http.StatusNotFound, metav1.StatusReasonNotFound)
		})
	}
}
