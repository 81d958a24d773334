package fakeapi_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

// TestCreateStampsServerManagedMetadata checks what a create fills in: uid,
// creationTimestamp, the next global resourceVersion, and a name from
// generateName; a ConfigMap gets no generation (see
// TestGenerationBumpsOnlyWhenSpecChanges).
// Diagram: API. client-go: the apiserver's create path (genericregistry.Store.Create).
func TestCreateStampsServerManagedMetadata(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	gen := configMap("default", "")
	gen.SetGenerateName("web-")

	a := mustCreate(t, cms, configMap("default", "a"))
	b := mustCreate(t, cms, gen)

	assert.NotEmpty(t, a.GetUID())
	assert.NotEqual(t, a.GetUID(), b.GetUID())
	ts := a.GetCreationTimestamp()
	assert.False(t, ts.IsZero())
	assert.NotContains(t, a.Object["metadata"], "generation")
	assert.Equal(t, "2", a.GetResourceVersion())
	assert.Equal(t, "3", b.GetResourceVersion())
	assert.Regexp(t, `^web-[a-z0-9]{5}$`, b.GetName())
	assert.Equal(t, uint64(3), s.CurrentResourceVersion())
}

// TestCreateRejectsBadInput checks the validation answers: duplicate name,
// missing or invalid name, resourceVersion set, wrong kind, missing namespace.
// Diagram: API. client-go: apierrors.IsAlreadyExists, IsInvalid, IsBadRequest.
func TestCreateRejectsBadInput(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))
	withRV := configMap("default", "b")
	withRV.SetResourceVersion("7")
	wrongKind := configMap("default", "c")
	wrongKind.SetKind("Secret")

	tests := []struct {
		name  string
		c     *fakeapi.ResourceClient
		obj   *unstructured.Unstructured
		check func(error) bool
	}{
		{"duplicate", cms, configMap("default", "a"), apierrors.IsAlreadyExists},
		{"no name", cms, configMap("default", ""), apierrors.IsInvalid},
		{"bad name", cms, configMap("default", "Not_A_Name"), apierrors.IsInvalid},
		{"bad label", cms, configMap("default", "d", "bad key!", "v"), apierrors.IsInvalid},
		{"resourceVersion set", cms, withRV, apierrors.IsBadRequest},
		{"wrong kind", cms, wrongKind, apierrors.IsBadRequest},
		{"namespace mismatch", cms, configMap("other", "e"), apierrors.IsBadRequest},
		{"no namespace", s.Resource(configMaps), configMap("", "f"), apierrors.IsBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.c.Create(context.Background(), tt.obj, metav1.CreateOptions{})

			assert.True(t, tt.check(err), "got %v", err)
		})
	}
	assert.Equal(t, uint64(2), s.CurrentResourceVersion(), "failed creates take no resourceVersion")
}

// TestUpdateWithStaleResourceVersionIsConflict checks optimistic
// concurrency: the second writer holding the old resourceVersion loses.
// Diagram: API. client-go: apierrors.IsConflict, retry.RetryOnConflict.
func TestUpdateWithStaleResourceVersionIsConflict(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	orig := mustCreate(t, cms, configMap("default", "a"))
	first, second := orig.DeepCopy(), orig.DeepCopy()
	first.Object["data"] = map[string]any{"k": "first"}
	second.Object["data"] = map[string]any{"k": "second"}

	_, err1 := cms.Update(context.Background(), first, metav1.UpdateOptions{})
	_, err2 := cms.Update(context.Background(), second, metav1.UpdateOptions{})

	require.NoError(t, err1)
	assert.True(t, apierrors.IsConflict(err2), "got %v", err2)
	assert.Contains(t, err2.Error(), "the object has been modified; please apply your changes to the latest version and try again")
	assert.Equal(t, "first", mustGet(t, cms, "a").Object["data"].(map[string]any)["k"])
}

// TestUpdateWithoutResourceVersionIsUnconditional checks that an empty
// resourceVersion skips the concurrency check, and that updating a missing
// object is NotFound.
// Diagram: API. client-go: the apiserver's AllowUnconditionalUpdate.
func TestUpdateWithoutResourceVersionIsUnconditional(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "a"))
	upd := configMap("default", "a")
	upd.Object["data"] = map[string]any{"k": "new"}

	out, err := cms.Update(context.Background(), upd, metav1.UpdateOptions{})
	_, errMissing := cms.Update(context.Background(), configMap("default", "missing"), metav1.UpdateOptions{})

	require.NoError(t, err)
	assert.Equal(t, "3", out.(*unstructured.Unstructured).GetResourceVersion())
	assert.True(t, apierrors.IsNotFound(errMissing), "got %v", errMissing)
}

// TestNoOpUpdateKeepsResourceVersion checks that writing back an unchanged
// object takes no resourceVersion (and, see the watch tests, sends no event).
// Diagram: API. client-go: the apiserver skips no-op writes (GuaranteedUpdate).
func TestNoOpUpdateKeepsResourceVersion(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	orig := mustCreate(t, cms, configMap("default", "a"))

	out, err := cms.Update(context.Background(), orig.DeepCopy(), metav1.UpdateOptions{})

	require.NoError(t, err)
	assert.Equal(t, orig.GetResourceVersion(), out.(*unstructured.Unstructured).GetResourceVersion())
	assert.Equal(t, uint64(2), s.CurrentResourceVersion())
}

// TestGenerationBumpsOnlyWhenSpecChanges checks metadata.generation. On a
// resource with a spec/status split (a status subresource: Widgets here,
// Deployments and Foos elsewhere) create sets 1, a label change or a status
// write keeps it, a spec change bumps it, and so does the deletionTimestamp
// of a delete held up by a finalizer. A ConfigMap, like on a real server,
// never has one, whatever changes.
// Diagram: API. controller-runtime: predicate.GenerationChangedPredicate relies on this.
func TestGenerationBumpsOnlyWhenSpecChanges(t *testing.T) {
	ctx := context.Background()
	s := newServer(t, fakeapi.Options{})
	require.NoError(t, s.Register(fakeapi.ResourceInfo{GVR: widgets, Kind: "Widget", Namespaced: true, HasStatus: true}))
	generations := func(c *fakeapi.ResourceClient, obj *unstructured.Unstructured, specField string) []int64 {
		obj.SetFinalizers([]string{"example.com/hold"})
		created := mustCreate(t, c, obj)
		out := []int64{created.GetGeneration()}
		step := func(change func(u *unstructured.Unstructured), status bool) {
			u := mustGet(t, c, obj.GetName())
			change(u)
			var err error
			if status {
				_, err = c.UpdateStatus(ctx, u, metav1.UpdateOptions{})
			} else {
				_, err = c.Update(ctx, u, metav1.UpdateOptions{})
			}
			require.NoError(t, err)
			out = append(out, mustGet(t, c, obj.GetName()).GetGeneration())
		}
		step(func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"tier": "web"}) }, false)
		if specField == "spec" {
			step(func(u *unstructured.Unstructured) { u.Object["status"] = map[string]any{"ready": true} }, true)
		}
		step(func(u *unstructured.Unstructured) { u.Object[specField] = map[string]any{"k": "changed"} }, false)
		require.NoError(t, c.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}))
		return append(out, mustGet(t, c, obj.GetName()).GetGeneration())
	}
	widget := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "demo.informerlab.io/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     map[string]any{"k": "v"},
	}}

	withSplit := generations(s.Resource(widgets).Namespace("default"), widget, "spec")
	withoutSplit := generations(s.Resource(configMaps).Namespace("default"), configMap("default", "a"), "data")

	assert.Equal(t, []int64{1, 1, 1, 2, 3}, withSplit, "create, label, status, spec, delete")
	assert.Equal(t, []int64{0, 0, 0, 0}, withoutSplit, "create, label, data, delete: a ConfigMap has no generation")
	assert.NotContains(t, mustGet(t, s.Resource(configMaps).Namespace("default"), "a").Object["metadata"], "generation")
}

// TestStatusSubresourceSplitsSpecAndStatus checks that on a resource with
// /status the main endpoint ignores status and UpdateStatus changes only
// status; a resource without /status answers UpdateStatus with 404.
// Diagram: API. client-go: the typed clients' UpdateStatus.
func TestStatusSubresourceSplitsSpecAndStatus(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	nss := s.Resource(namespaces)
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "team"},
		"spec": map[string]any{"finalizers": []any{"kubernetes"}},
	}}
	created := mustCreate(t, nss, ns)

	viaMain := created.DeepCopy()
	viaMain.Object["status"] = map[string]any{"phase": "Terminating"}
	viaMain.SetLabels(map[string]string{"a": "b"})
	out, err := nss.Update(context.Background(), viaMain, metav1.UpdateOptions{})
	require.NoError(t, err)
	afterMain := out.(*unstructured.Unstructured)

	viaStatus := afterMain.DeepCopy()
	viaStatus.Object["status"] = map[string]any{"phase": "Active"}
	viaStatus.SetLabels(nil)
	out, err = nss.UpdateStatus(context.Background(), viaStatus, metav1.UpdateOptions{})
	require.NoError(t, err)
	afterStatus := out.(*unstructured.Unstructured)
	_, errNoStatus := s.Resource(configMaps).Namespace("default").UpdateStatus(context.Background(), configMap("default", "x"), metav1.UpdateOptions{})

	assert.Equal(t, map[string]any{"phase": "Active"}, created.Object["status"], "a namespace starts Active")
	assert.Equal(t, created.Object["status"], afterMain.Object["status"], "main endpoint must ignore status")
	assert.Equal(t, map[string]string{"a": "b"}, afterMain.GetLabels())
	assert.Equal(t, map[string]any{"phase": "Active"}, afterStatus.Object["status"])
	assert.Equal(t, map[string]string{"a": "b"}, afterStatus.GetLabels(), "/status must ignore metadata changes")
	assert.Zero(t, afterStatus.GetGeneration(), "a Namespace has no generation, as on a real server")
	assert.True(t, apierrors.IsNotFound(errNoStatus), "got %v", errNoStatus)
}

// TestObjectsAreCopiedInAndOut checks that neither the object passed to
// Create nor the one returned aliases the stored object.
// Diagram: API. client-go: "never mutate cached objects" starts at the server.
func TestObjectsAreCopiedInAndOut(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	in := configMap("default", "a")

	out := mustCreate(t, cms, in)
	in.Object["data"] = map[string]any{"k": "mutated-in"}
	out.Object["data"].(map[string]any)["k"] = "mutated-out"

	assert.Equal(t, "v", mustGet(t, cms, "a").Object["data"].(map[string]any)["k"])
}

// TestDeleteWithFinalizersSetsDeletionTimestamp checks the finalizer
// lifecycle: DELETE marks the object (deletionTimestamp); no finalizer may
// be added then; an update removing the last finalizer deletes it.
// (TestGenerationBumpsOnlyWhenSpecChanges checks the generation bump.)
// Diagram: API. client-go: controllers remove their finalizer to let deletion finish.
func TestDeleteWithFinalizersSetsDeletionTimestamp(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	obj := configMap("default", "a")
	obj.SetFinalizers([]string{"example.com/cleanup"})
	mustCreate(t, cms, obj)

	require.NoError(t, cms.Delete(context.Background(), "a", metav1.DeleteOptions{}))
	marked := mustGet(t, cms, "a")
	addFinalizer := marked.DeepCopy()
	addFinalizer.SetFinalizers([]string{"example.com/cleanup", "example.com/other"})
	_, errAdd := cms.Update(context.Background(), addFinalizer, metav1.UpdateOptions{})
	marked.SetFinalizers(nil)
	_, errRemove := cms.Update(context.Background(), marked, metav1.UpdateOptions{})
	_, errGet := cms.Get(context.Background(), "a", metav1.GetOptions{})

	assert.NotNil(t, marked.GetDeletionTimestamp())
	assert.True(t, apierrors.IsInvalid(errAdd), "no new finalizers while deleting: %v", errAdd)
	require.NoError(t, errRemove)
	assert.True(t, apierrors.IsNotFound(errGet), "object must be gone: %v", errGet)
}

// TestDeletePreconditions checks UID and resourceVersion preconditions.
// Diagram: API. client-go: metav1.Preconditions.
func TestDeletePreconditions(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	obj := mustCreate(t, cms, configMap("default", "a"))
	wrongUID := types.UID("nope")
	staleRV := "0"

	errUID := cms.Delete(context.Background(), "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &wrongUID}})
	errRV := cms.Delete(context.Background(), "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: &staleRV}})
	uid := obj.GetUID()
	errOK := cms.Delete(context.Background(), "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	errAgain := cms.Delete(context.Background(), "a", metav1.DeleteOptions{})

	assert.True(t, apierrors.IsConflict(errUID), "got %v", errUID)
	assert.True(t, apierrors.IsConflict(errRV), "got %v", errRV)
	assert.NoError(t, errOK)
	assert.True(t, apierrors.IsNotFound(errAgain), "got %v", errAgain)
}

func ownedBy(obj *unstructured.Unstructured, owners ...*unstructured.Unstructured) *unstructured.Unstructured {
	var refs []metav1.OwnerReference
	for _, o := range owners {
		refs = append(refs, metav1.OwnerReference{APIVersion: o.GetAPIVersion(), Kind: o.GetKind(), Name: o.GetName(), UID: o.GetUID()})
	}
	obj.SetOwnerReferences(refs)
	return obj
}

// TestDeletingOwnerCollectsDependents checks background garbage collection:
// dependents of a deleted owner are deleted (recursively), except one that
// still has another owner, which just loses the reference.
// Diagram: API. controller-runtime: EnqueueRequestForOwner watches these dependents.
func TestDeletingOwnerCollectsDependents(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	owner := mustCreate(t, cms, configMap("default", "owner"))
	other := mustCreate(t, cms, configMap("default", "other-owner"))
	child := mustCreate(t, cms, ownedBy(configMap("default", "child"), owner))
	mustCreate(t, cms, ownedBy(configMap("default", "grandchild"), child))
	mustCreate(t, cms, ownedBy(configMap("default", "shared"), owner, other))
	leaseOwned := ownedBy(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": map[string]any{"name": "l", "namespace": "default"},
	}}, owner)
	mustCreate(t, s.Resource(leases).Namespace("default"), leaseOwned)

	require.NoError(t, cms.Delete(context.Background(), "owner", metav1.DeleteOptions{}))
	list, err := cms.List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	leaseList, err := s.Resource(leases).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)

	assert.Equal(t, []string{"other-owner", "shared"}, names(t, list))
	assert.Empty(t, names(t, leaseList))
	shared := mustGet(t, cms, "shared")
	require.Len(t, shared.GetOwnerReferences(), 1)
	assert.Equal(t, other.GetUID(), shared.GetOwnerReferences()[0].UID)
}

// TestOrphanPropagationKeepsDependents checks propagationPolicy Orphan: the
// owner goes, dependents stay without the owner reference.
// Diagram: API. client-go: metav1.DeletePropagationOrphan.
func TestOrphanPropagationKeepsDependents(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	owner := mustCreate(t, cms, configMap("default", "owner"))
	mustCreate(t, cms, ownedBy(configMap("default", "child"), owner))
	orphan := metav1.DeletePropagationOrphan

	require.NoError(t, cms.Delete(context.Background(), "owner", metav1.DeleteOptions{PropagationPolicy: &orphan}))

	child := mustGet(t, cms, "child")
	assert.Empty(t, child.GetOwnerReferences())
}

// TestOwnerWithFinalizerCollectsDependentsWhenGone checks that dependents
// survive while the owner is only marked for deletion, and are collected
// once its last finalizer is removed.
// Diagram: API. client-go: finalizers and garbage collection together.
func TestOwnerWithFinalizerCollectsDependentsWhenGone(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	cms := s.Resource(configMaps).Namespace("default")
	o := configMap("default", "owner")
	o.SetFinalizers([]string{"example.com/f"})
	owner := mustCreate(t, cms, o)
	mustCreate(t, cms, ownedBy(configMap("default", "child"), owner))

	require.NoError(t, cms.Delete(context.Background(), "owner", metav1.DeleteOptions{}))
	mustGet(t, cms, "child")
	_, err := cms.Patch(context.Background(), "owner", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	require.NoError(t, err)

	_, errChild := cms.Get(context.Background(), "child", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(errChild), "got %v", errChild)
}

// TestUnknownResourceIsNotFound checks that a handle on an unregistered
// resource answers 404, and that Register validates its input.
// Diagram: API. client-go: discovery decides which resources exist.
func TestUnknownResourceIsNotFound(t *testing.T) {
	s := newServer(t, fakeapi.Options{})
	gvr := configMaps
	gvr.Resource = "widgets"

	_, err := s.Resource(gvr).List(context.Background(), metav1.ListOptions{})
	errDup := s.Register(fakeapi.ResourceInfo{GVR: configMaps, Kind: "ConfigMap"})
	errEmpty := s.Register(fakeapi.ResourceInfo{GVR: gvr})

	assert.True(t, apierrors.IsNotFound(err), "got %v", err)
	assert.Error(t, errDup)
	assert.Error(t, errEmpty)
}

// TestConcurrentWritersKeepInvariants hammers one object from several
// goroutines with retry-on-conflict; every successful write takes exactly
// one resourceVersion.
// Diagram: API. client-go: retry.RetryOnConflict.
func TestConcurrentWritersKeepInvariants(t *testing.T) {
	s := newServer(t, fakeapi.Options{HistoryLimit: 50})
	cms := s.Resource(configMaps).Namespace("default")
	mustCreate(t, cms, configMap("default", "counter"))
	const writers, each = 4, 25
	done := make(chan error)

	for w := range writers {
		go func() {
			for i := 0; i < each; {
				cur, err := cms.Get(context.Background(), "counter", metav1.GetOptions{})
				if err != nil {
					done <- err
					return
				}
				u := cur.(*unstructured.Unstructured)
				u.Object["data"] = map[string]any{"k": strconv.Itoa(w) + "-" + strconv.Itoa(i)}
				if _, err := cms.Update(context.Background(), u, metav1.UpdateOptions{}); err == nil {
					i++
				} else if !apierrors.IsConflict(err) {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range writers {
		require.NoError(t, <-done)
	}

	assert.Equal(t, uint64(2+writers*each), s.CurrentResourceVersion())
	require.NoError(t, s.CheckInvariants())
}
