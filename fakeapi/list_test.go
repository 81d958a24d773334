package fakeapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/fakeapi"
)

// seed creates configmaps a..e in default (rv 2..6) and x in kube-system (rv 7).
func seed(t *testing.T, s *fakeapi.Server) *fakeapi.ResourceClient {
	t.Helper()
	cms := s.Resource(configMaps).Namespace("default")
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		mustCreate(t, cms, configMap("default", n, "tier", map[bool]string{true: "web", false: "db"}[n < "c"]))
	}
	mustCreate(t, s.Resource(configMaps).Namespace("kube-system"), configMap("kube-system", "x"))
	return cms
}

// TestListReturnsSnapshotWithResourceVersion checks the basic list: items
// in key order, the list's resourceVersion is the current one, items are
// deep copies and meta.ExtractList works.
// Diagram: step 1. client-go: Reflector.list reads ListMeta.ResourceVersion.
func TestListReturnsSnapshotWithResourceVersion(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := seed(t, s)

	all, err := s.Resource(configMaps).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	inNS, err := cms.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	inNS.(*unstructured.UnstructuredList).Items[0].SetName("mutated")

	assert.Equal(t, []string{"a", "b", "c", "d", "e", "x"}, names(t, all))
	assert.Equal(t, "7", listRV(t, all))
	assert.Equal(t, "ConfigMapList", all.GetObjectKind().GroupVersionKind().Kind)
	assert.Equal(t, "a", mustGet(t, cms, "a").GetName())
}

// TestListResourceVersionSemantics walks the resourceVersion/limit/match
// table of the real server.
// Diagram: step 1. client-go: Reflector lists with RV "0" first, then the last RV, then "" after a 410.
func TestListResourceVersionSemantics(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := seed(t, s)
	require.NoError(t, cms.Delete(context.Background(), "a", metav1.DeleteOptions{})) // rv 8

	tests := []struct {
		name      string
		opts      metav1.ListOptions
		wantNames []string
		wantRV    string
		wantCont  bool
	}{
		{"latest", metav1.ListOptions{}, []string{"b", "c", "d", "e"}, "8", false},
		{"latest paginated", metav1.ListOptions{Limit: 2}, []string{"b", "c"}, "8", true},
		{"any ignores limit", metav1.ListOptions{ResourceVersion: "0", Limit: 2}, []string{"b", "c", "d", "e"}, "8", false},
		{"not older than N serves latest", metav1.ListOptions{ResourceVersion: "4"}, []string{"b", "c", "d", "e"}, "8", false},
		{"N with limit is exact", metav1.ListOptions{ResourceVersion: "4", Limit: 10}, []string{"a", "b", "c"}, "4", false},
		{"exact N", metav1.ListOptions{ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, []string{"a", "b", "c", "d", "e"}, "7", false},
		{"not older than N explicit", metav1.ListOptions{ResourceVersion: "7", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, Limit: 1}, []string{"b"}, "8", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list, err := cms.List(context.Background(), tt.opts)

			require.NoError(t, err)
			assert.Equal(t, tt.wantNames, names(t, list))
			assert.Equal(t, tt.wantRV, listRV(t, list))
			lm, _ := meta.ListAccessor(list)
			assert.Equal(t, tt.wantCont, lm.GetContinue() != "")
		})
	}
}

// TestListRejectsInvalidResourceVersionRequests checks the error answers:
// ahead of the server (504 TooLarge), Exact before the window (410),
// invalid combinations (422), continue with a resourceVersion (400).
// Diagram: step 1. client-go: apierrors.IsTooLargeResourceVersion, IsResourceExpired.
func TestListRejectsInvalidResourceVersionRequests(t *testing.T) {
	s := newServer(t, fakeapi.Options{HistoryLimit: 2})
	cms := seed(t, s) // rv 7; history keeps 6 and 7
	first, err := cms.List(context.Background(), metav1.ListOptions{Limit: 1})
	require.NoError(t, err)
	cont := first.(*unstructured.UnstructuredList).GetContinue()

	tests := []struct {
		name string
		opts metav1.ListOptions
		code int32
	}{
		{"ahead of server", metav1.ListOptions{ResourceVersion: "100"}, http.StatusGatewayTimeout},
		{"exact before window", metav1.ListOptions{ResourceVersion: "4", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, http.StatusGone},
		{"exact with 0", metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact}, http.StatusUnprocessableEntity},
		{"match without rv", metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, http.StatusUnprocessableEntity},
		{"unknown match", metav1.ListOptions{ResourceVersion: "2", ResourceVersionMatch: "Newest"}, http.StatusUnprocessableEntity},
		{"send initial events", metav1.ListOptions{SendInitialEvents: ptr(true)}, http.StatusUnprocessableEntity},
		{"continue with rv", metav1.ListOptions{ResourceVersion: "6", Continue: cont}, http.StatusBadRequest},
		{"garbage continue", metav1.ListOptions{Continue: "%%%"}, http.StatusBadRequest},
		{"garbage rv", metav1.ListOptions{ResourceVersion: "abc"}, http.StatusBadRequest},
		{"bad label selector", metav1.ListOptions{LabelSelector: "a in (b"}, http.StatusBadRequest},
		{"unsupported field", metav1.ListOptions{FieldSelector: "spec.x=y"}, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := cms.List(context.Background(), tt.opts)

			var se *apierrors.StatusError
			require.ErrorAs(t, err, &se)
			t.Logf("%s: %d %s", tt.name, se.ErrStatus.Code, se.ErrStatus.Message)
			assert.Equal(t, tt.code, se.ErrStatus.Code, se.ErrStatus.Message)
		})
	}
	_, err = cms.List(context.Background(), metav1.ListOptions{ResourceVersion: "100"})
	assert.True(t, apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge))
}

// TestPaginationServesOneSnapshot checks limit/continue: pages come from the
// snapshot of the first page even while writes happen, remainingItemCount
// counts what is left, and a token dies with compaction (410).
// Diagram: step 1. client-go: tools/pager.ListPager.
func TestPaginationServesOneSnapshot(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := seed(t, s)

	page1, err := cms.List(context.Background(), metav1.ListOptions{Limit: 2})
	require.NoError(t, err)
	require.NoError(t, cms.Delete(context.Background(), "c", metav1.DeleteOptions{}))
	mustCreate(t, cms, configMap("default", "bb"))
	l1 := page1.(*unstructured.UnstructuredList)
	page2, err := cms.List(context.Background(), metav1.ListOptions{Limit: 2, Continue: l1.GetContinue()})
	require.NoError(t, err)
	l2 := page2.(*unstructured.UnstructuredList)
	page3, err := cms.List(context.Background(), metav1.ListOptions{Limit: 2, Continue: l2.GetContinue()})
	require.NoError(t, err)
	s.Compact()
	_, errExpired := cms.List(context.Background(), metav1.ListOptions{Limit: 2, Continue: l2.GetContinue()})

	t.Logf("List limit=2: %v; then c is deleted and bb created; the next pages: %v, %v, all at resourceVersion %s", names(t, page1), names(t, page2), names(t, page3), listRV(t, page2))
	t.Logf("   after a compaction the same continue token: %v", errExpired)
	assert.Equal(t, []string{"a", "b"}, names(t, page1))
	assert.Equal(t, int64(3), *l1.GetRemainingItemCount())
	assert.Equal(t, []string{"c", "d"}, names(t, page2))
	assert.Equal(t, "7", listRV(t, page2), "every page carries the first page's snapshot resourceVersion")
	assert.Equal(t, int64(1), *l2.GetRemainingItemCount())
	assert.Equal(t, []string{"e"}, names(t, page3))
	assert.Empty(t, page3.(*unstructured.UnstructuredList).GetContinue())
	assert.True(t, apierrors.IsResourceExpired(errExpired), "got %v", errExpired)
}

// TestListSelectors checks label selector operators and field selectors.
// Diagram: step 1. client-go: metav1.ListOptions.LabelSelector / FieldSelector.
func TestListSelectors(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	seed(t, s)
	all := s.Resource(configMaps)

	tests := []struct {
		labels, fields string
		want           []string
	}{
		{"tier=web", "", []string{"a", "b"}},
		{"tier==web", "", []string{"a", "b"}},
		{"tier!=web", "", []string{"c", "d", "e", "x"}},
		{"tier in (db,cache)", "", []string{"c", "d", "e"}},
		{"tier notin (db)", "", []string{"a", "b", "x"}},
		{"tier", "", []string{"a", "b", "c", "d", "e"}},
		{"!tier", "", []string{"x"}},
		{"", "metadata.name=c", []string{"c"}},
		{"", "metadata.namespace=kube-system", []string{"x"}},
		{"tier=db", "metadata.name!=d", []string{"c", "e"}},
	}
	for _, tt := range tests {
		t.Run(tt.labels+"|"+tt.fields, func(t *testing.T) {
			list, err := all.List(context.Background(), metav1.ListOptions{LabelSelector: tt.labels, FieldSelector: tt.fields})

			require.NoError(t, err)
			assert.Equal(t, tt.want, names(t, list))
		})
	}
}

// TestSelectorPaginationHasNoRemainingCount checks the real server's rule:
// with a selector the remaining count is unknown, so it is omitted.
// Diagram: step 1. client-go: ListMeta.RemainingItemCount.
func TestSelectorPaginationHasNoRemainingCount(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := seed(t, s)

	list, err := cms.List(context.Background(), metav1.ListOptions{LabelSelector: "tier=db", Limit: 1})
	require.NoError(t, err)

	l := list.(*unstructured.UnstructuredList)
	assert.Equal(t, []string{"c"}, names(t, l))
	assert.NotEmpty(t, l.GetContinue())
	assert.Nil(t, l.GetRemainingItemCount())
}
