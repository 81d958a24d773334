package samplecontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/manager"
	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/indexer"
)

// TestReconcileReadsItsOwnStatusWriteWhenCacheIsBehind drives a
// FooReconciler over caches the test controls, to freeze the moment a real
// informer only passes through: the Foo cache still holds the status the
// reconciler just overwrote. The Foo says 2 available; the Deployment was
// recreated, so Reconcile writes 0 available; the cache does not see that
// write. The Deployment reports 2 again: the stale cache says "2
// available" already, yet the server says 0 — and no event will come,
// since GenerationChangedPredicate drops status updates. The reconciler
// recognises the stale version as one its own write replaced, works from
// its write's result, and writes 2.
// Diagram: step 9 (stale read after your own write). client-go: none (kube-controller-manager's ControllerExpectations solve the same problem).
func TestReconcileReadsItsOwnStatusWriteWhenCacheIsBehind(t *testing.T) {
	ctx := context.Background()
	srv := fakeapi.New(fakeapi.Options{Scheme: NewScheme()})
	defer srv.Close()
	require.NoError(t, Register(srv))
	api := typedAPI(func(gvr schema.GroupVersionResource, ns string) Resource { return srv.Resource(gvr).Namespace(ns) }, NewScheme())
	fooCache := indexer.NewIndexer(nil, nil)
	depCache := indexer.NewIndexer(nil, nil)
	r := newTestReconciler(t, api, cacheReader{foos: fooCache, deployments: depCache})
	req := controller.Request{}
	req.Namespace, req.Name = "demo", "example"

	// A converged Foo: finalizer, 2 of 2 available.
	out, err := api(FoosGVR, "demo").Create(ctx, &Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "demo", Finalizers: []string{FinalizerName}},
		Spec:       FooSpec{DeploymentName: "web", Replicas: ptr(int32(2))},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	foo := out.(*Foo)
	foo.Status = FooStatus{AvailableReplicas: 2, ObservedGeneration: 1}
	meta.SetStatusCondition(&foo.Status.Conditions, readyCondition(foo, true, ReasonAvailable, `Deployment "web" has 2 of 2 replicas available`))
	out, err = api(FoosGVR, "demo").UpdateStatus(ctx, foo, metav1.UpdateOptions{})
	require.NoError(t, err)
	converged := out.(*Foo)
	require.NoError(t, fooCache.Add(converged))
	// Its Deployment was just recreated: nothing available yet.
	dep, err := r.createDeployment(ctx, converged.DeepCopy(), 2)
	require.NoError(t, err)
	require.NoError(t, depCache.Add(dep))

	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	require.Equal(t, int32(0), getFoo(t, api).Status.AvailableReplicas, "status written: 0 available")
	t.Log("a converged Foo whose Deployment was just recreated: Reconcile writes status availableReplicas 0")

	// The Deployment reports 2 available again; the Foo cache never saw
	// the write above.
	available := dep.DeepCopy()
	available.Status = DeploymentStatus{ObservedGeneration: dep.Generation, AvailableReplicas: 2}
	require.NoError(t, depCache.Update(available))
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)

	assert.Equal(t, int32(2), getFoo(t, api).Status.AvailableReplicas, "the stale cache did not hide the reconciler's own write")
	t.Logf("   the Deployment is available again, the Foo cache never saw that write: the next Reconcile writes availableReplicas %d; it remembers %d write of its own", getFoo(t, api).Status.AvailableReplicas, r.own.len())
	assert.Equal(t, 1, r.own.len())
	assert.NoError(t, r.own.checkInvariants())

	// Once the cache catches up, the reconciler forgets its copy.
	require.NoError(t, fooCache.Update(getFoo(t, api)))
	_, err = r.Reconcile(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, 0, r.own.len())
	t.Log("   once the cache has caught up, it forgets its copy")
}

// TestReconcileKnowsItsFinalizerRemovalDeletedTheFoo drives the last
// Reconciles of a deleted Foo. The cache holds it with its deletionTimestamp;
// cleanup finds no Deployment, and the patch removing the finalizer deletes
// the Foo. Like a real API server, fakeapi answers that patch with the Foo
// at the resourceVersion the patch replaced: no new version exists. The
// reconciler remembers that version as replaced by a deletion, so the next
// Reconcile, over a cache that still holds it, knows the Foo is gone and
// writes nothing (a patch would fail: the test makes the server fail the
// next one). Once the cache has seen the deletion, the memory goes.
// Diagram: step 9 (own writes) and the finalizer. client-go: none.
func TestReconcileKnowsItsFinalizerRemovalDeletedTheFoo(t *testing.T) {
	ctx := context.Background()
	srv := fakeapi.New(fakeapi.Options{Scheme: NewScheme()})
	defer srv.Close()
	require.NoError(t, Register(srv))
	api := typedAPI(func(gvr schema.GroupVersionResource, ns string) Resource { return srv.Resource(gvr).Namespace(ns) }, NewScheme())
	fooCache := indexer.NewIndexer(nil, nil)
	r := newTestReconciler(t, api, cacheReader{foos: fooCache, deployments: indexer.NewIndexer(nil, nil)})
	req := controller.Request{}
	req.Namespace, req.Name = "demo", "example"
	_, err := api(FoosGVR, "demo").Create(ctx, &Foo{
		ObjectMeta: metav1.ObjectMeta{Name: "example", Namespace: "demo", Finalizers: []string{FinalizerName}},
		Spec:       FooSpec{DeploymentName: "web", Replicas: ptr(int32(2))},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NoError(t, api(FoosGVR, "demo").Delete(ctx, "example", metav1.DeleteOptions{}))
	deleting := getFoo(t, api)
	require.NotNil(t, deleting.DeletionTimestamp)
	require.NoError(t, fooCache.Add(deleting))

	_, errFirst := r.Reconcile(ctx, req)
	_, errGet := api(FoosGVR, "demo").Get(ctx, "example", metav1.GetOptions{})
	require.NoError(t, srv.FailNext("patch", 1, 500))
	_, errStale := r.Reconcile(ctx, req)
	require.NoError(t, fooCache.Delete(deleting))
	_, errCaughtUp := r.Reconcile(ctx, req)

	require.NoError(t, errFirst)
	assert.True(t, apierrors.IsNotFound(errGet), "the finalizer patch deleted the Foo: %v", errGet)
	assert.NoError(t, errStale, "the stale cache's Foo is known gone: no write")
	assert.NoError(t, errCaughtUp)
	assert.Equal(t, 0, r.own.len(), "nothing is remembered once the cache has seen the deletion")
	assert.NoError(t, r.own.checkInvariants())
}

// TestOwnWritesRemembersOnlyChainsOfItsWrites: the copy of our own write is
// used only for the versions our writes replaced, in a chain; a version
// written by someone else in between starts the chain again. A write that
// made no new version adds nothing; one that deleted the Foo makes the
// versions it replaced known gone.
// Diagram: step 9. client-go: none.
func TestOwnWritesRemembersOnlyChainsOfItsWrites(t *testing.T) {
	o := newOwnWrites()
	at := func(rv string, available int32) *Foo {
		return &Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "x", ResourceVersion: rv}, Status: FooStatus{AvailableReplicas: available}}
	}
	fresher := func(cached *Foo) string {
		foo, gone := o.fresher(cached)
		if gone {
			return "gone"
		}
		return foo.ResourceVersion
	}

	o.wrote("1", at("2", 1)) // finalizer patch
	require.NoError(t, o.checkInvariants())
	o.wrote("2", at("3", 2)) // status write, from our own result
	require.NoError(t, o.checkInvariants())

	assert.Equal(t, "3", fresher(at("1", 0)), "cache at 1: behind both writes")
	t.Logf("own writes 1->2 and 2->3: with the cache at 1 or 2 the fresher copy is 3; at 3 it is the cache's own")
	assert.Equal(t, "3", fresher(at("2", 1)), "cache at 2: behind the second")
	assert.Equal(t, "3", fresher(at("3", 2)), "cache at 3: caught up")
	assert.Equal(t, 0, o.len(), "and forgotten")

	o.wrote("3", at("4", 3))
	o.wrote("7", at("8", 4)) // someone else wrote 4..7: a new chain
	require.NoError(t, o.checkInvariants())
	assert.Equal(t, "3", fresher(at("3", 2)), "3 is not known as replaced any more")
	assert.Equal(t, 0, o.len())

	o.wrote("8", at("9", 5))
	o.wrote("9", at("9", 5)) // a write that made no new version: nothing to remember
	require.NoError(t, o.checkInvariants())
	assert.Equal(t, "9", fresher(at("8", 4)), "the chain is unchanged")
	o.forget(controller.Request{}.NamespacedName)
	assert.Equal(t, 1, o.len(), "forget of another key")
	fresh, _ := o.fresher(at("8", 4))
	fresh.Status.AvailableReplicas = 99
	again, _ := o.fresher(at("8", 4))
	assert.Equal(t, int32(5), again.Status.AvailableReplicas, "fresher hands out copies")

	o.deleted(types.NamespacedName{Namespace: "demo", Name: "x"}, "9") // the finalizer went
	require.NoError(t, o.checkInvariants())
	assert.Equal(t, "gone", fresher(at("8", 4)), "cache at 8: behind the deletion too")
	assert.Equal(t, "gone", fresher(at("9", 5)), "cache at 9: the version the deletion replaced")
	assert.Equal(t, "10", fresher(at("10", 6)), "a newer Foo of the same name is someone else's")
	assert.Equal(t, 0, o.len())
	assert.NoError(t, o.checkInvariants())
}

func getFoo(t *testing.T, api API) *Foo {
	t.Helper()
	out, err := api(FoosGVR, "demo").Get(context.Background(), "example", metav1.GetOptions{})
	require.NoError(t, err)
	return out.(*Foo)
}

func ptr[T any](v T) *T { return &v }

// newTestReconciler returns a FooReconciler that reads through reader and
// writes through the client of a Manager (never started: writes need no
// cache) over api. Its Events are discarded.
func newTestReconciler(t *testing.T, api API, reader manager.Reader) *FooReconciler {
	t.Helper()
	mgr, err := manager.New(manager.Options{
		NewClient: func(gvr schema.GroupVersionResource, ns string) controller.ResourceInterface { return api(gvr, ns) },
		Scheme:    NewScheme(),
		Logger:    slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	_, err = mgr.GetInformer(FoosGVR, &Foo{})
	require.NoError(t, err)
	_, err = mgr.GetInformer(DeploymentsGVR, &Deployment{})
	require.NoError(t, err)
	return newFooReconciler(reader, mgr.GetClient(), api, discardEvents{}, DefaultImage, nil)
}

// cacheReader is a manager.Reader over caches a test fills itself, so
// that it can hold them behind the server. Like the Manager's client, it
// returns copies.
type cacheReader struct {
	foos, deployments indexer.Indexer
}

func (c cacheReader) Get(_ context.Context, key types.NamespacedName, obj controller.Object) error {
	switch obj := obj.(type) {
	case *Foo:
		return getCopy(c.foos, FoosGVR.GroupResource(), key, obj)
	case *Deployment:
		return getCopy(c.deployments, DeploymentsGVR.GroupResource(), key, obj)
	}
	return fmt.Errorf("cacheReader: cannot read %T", obj)
}

func (c cacheReader) List(context.Context, manager.ObjectList, ...manager.ListOption) error {
	return errors.New("cacheReader: List is not used by the reconciler")
}

func getCopy[T any, PT interface {
	*T
	DeepCopy() PT
}](cache indexer.Indexer, gr schema.GroupResource, key types.NamespacedName, into PT) error {
	item, exists, err := cache.GetByKey(key.Namespace + "/" + key.Name)
	if err != nil {
		return err
	}
	if !exists {
		return apierrors.NewNotFound(gr, key.Name)
	}
	*into = *item.(PT).DeepCopy()
	return nil
}

type discardEvents struct{}

func (discardEvents) Event(controller.Object, string, string, string)          {}
func (discardEvents) Eventf(controller.Object, string, string, string, ...any) {}
