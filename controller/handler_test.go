package controller_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/workqueue"
)

func newQueue() workqueue.RateLimitingInterface[controller.Request] {
	return workqueue.NewRateLimiting(workqueue.DefaultControllerRateLimiter[controller.Request]())
}

// TestEnqueueRequestForObjectEnqueuesTheObjectKey: every event enqueues the
// key of its object, an update only once (ObjectNew, or ObjectOld if there
// is no new one), and an event without an object nothing.
// Diagram: step 7. client-go: controller-runtime handler.EnqueueRequestForObject.
func TestEnqueueRequestForObjectEnqueuesTheObjectKey(t *testing.T) {
	ctx := context.Background()
	h := controller.EnqueueRequestForObject{}
	a, b := ctrltest.NewCM("ns", "a"), ctrltest.NewCM("other", "b")
	cases := []struct {
		name string
		send func(q workqueue.RateLimitingInterface[controller.Request])
		want []string
	}{
		{"create", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Create(ctx, controller.CreateEvent{Object: a}, q)
		}, []string{"ns/a"}},
		{"update", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Update(ctx, controller.UpdateEvent{ObjectOld: b, ObjectNew: a}, q)
		}, []string{"ns/a"}},
		{"update without new", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Update(ctx, controller.UpdateEvent{ObjectOld: b}, q)
		}, []string{"other/b"}},
		{"delete", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Delete(ctx, controller.DeleteEvent{Object: a, DeleteStateUnknown: true}, q)
		}, []string{"ns/a"}},
		{"generic", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Generic(ctx, controller.GenericEvent{Object: b}, q)
		}, []string{"other/b"}},
		{"no object", func(q workqueue.RateLimitingInterface[controller.Request]) {
			h.Create(ctx, controller.CreateEvent{}, q)
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue()
			defer q.ShutDown()

			tc.send(q)

			assert.Equal(t, tc.want, ctrltest.Drain(q))
		})
	}
}

// TestEnqueueRequestForOwnerFollowsOwnerReferences: owner references are
// matched on API group and kind, whatever the version; other kinds and
// groups are ignored; OnlyControllerOwner keeps just the controller
// reference; a cluster-scoped owner's Request has no namespace.
// Diagram: step 7. client-go: controller-runtime handler.EnqueueRequestForOwner.
func TestEnqueueRequestForOwnerFollowsOwnerReferences(t *testing.T) {
	foo := schema.GroupKind{Group: "samplecontroller.k8s.io", Kind: "Foo"}
	obj := ctrltest.Owned("ns", "child",
		ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "ctrl", true),
		ctrltest.OwnerRef("samplecontroller.k8s.io/v1beta9", "Foo", "other", false),
		ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Bar", "bar", false),
		ctrltest.OwnerRef("elsewhere.io/v1alpha1", "Foo", "lookalike", false),
		ctrltest.OwnerRef("not/a/version", "Foo", "malformed", false),
	)
	cases := []struct {
		name string
		opts []controller.OwnerOption
		want []string
	}{
		{"every owner of the kind", nil, []string{"ns/ctrl", "ns/other"}},
		{"only the controller", []controller.OwnerOption{controller.OnlyControllerOwner()}, []string{"ns/ctrl"}},
		{"cluster-scoped owner", []controller.OwnerOption{controller.OnlyControllerOwner(), controller.OwnerIsClusterScoped()}, []string{"ctrl"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := newQueue()
			defer q.ShutDown()
			h := controller.EnqueueRequestForOwner(foo, tc.opts...)

			h.Create(context.Background(), controller.CreateEvent{Object: obj}, q)

			got := ctrltest.Drain(q)
			t.Logf("a child owned by Foo ctrl (controller), Foo other, Bar bar, a Foo of another group and a malformed one; %s: %v", tc.name, got)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestEnqueueRequestForOwnerUpdateReachesOldAndNewOwners: when an update
// moves an object from one owner to another, both owners are enqueued;
// when the owner is unchanged it is enqueued once. Deletes and generic
// events reach the owner too.
// Diagram: step 7. client-go: controller-runtime handler.EnqueueRequestForOwner (Update).
func TestEnqueueRequestForOwnerUpdateReachesOldAndNewOwners(t *testing.T) {
	foo := schema.GroupKind{Group: "samplecontroller.k8s.io", Kind: "Foo"}
	h := controller.EnqueueRequestForOwner(foo, controller.OnlyControllerOwner())
	fromA := ctrltest.Owned("ns", "child", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "a", true))
	toB := ctrltest.Owned("ns", "child", ctrltest.OwnerRef("samplecontroller.k8s.io/v1alpha1", "Foo", "b", true))
	q := newQueue()
	defer q.ShutDown()
	ctx := context.Background()

	h.Update(ctx, controller.UpdateEvent{ObjectOld: fromA, ObjectNew: toB}, q)
	got := ctrltest.Drain(q)
	t.Logf("the child's controller changes from Foo a to Foo b: an update enqueues %v", got)
	assert.Equal(t, []string{"ns/a", "ns/b"}, got)

	h.Update(ctx, controller.UpdateEvent{ObjectOld: fromA, ObjectNew: fromA}, q)
	assert.Equal(t, []string{"ns/a"}, ctrltest.Drain(q))
	assert.Zero(t, q.Len())

	h.Delete(ctx, controller.DeleteEvent{Object: toB, DeleteStateUnknown: true}, q)
	h.Generic(ctx, controller.GenericEvent{Object: fromA}, q)
	assert.Equal(t, []string{"ns/a", "ns/b"}, ctrltest.Drain(q))
}

// TestEnqueueRequestsFromMapFuncMapsOldAndNew: an update maps both objects
// and enqueues the union once each; other events map their one object.
// Diagram: step 7. client-go: controller-runtime handler.EnqueueRequestsFromMapFunc.
func TestEnqueueRequestsFromMapFuncMapsOldAndNew(t *testing.T) {
	// Each ConfigMap names, in its "users" label, the object that reads it.
	h := controller.EnqueueRequestsFromMapFunc(func(_ context.Context, obj controller.Object) []controller.Request {
		return []controller.Request{ctrltest.Req(obj.GetNamespace(), obj.GetLabels()["user"]), ctrltest.Req(obj.GetNamespace(), "always")}
	})
	before, after := ctrltest.NewCM("ns", "cfg"), ctrltest.NewCM("ns", "cfg")
	before.SetLabels(map[string]string{"user": "x"})
	after.SetLabels(map[string]string{"user": "y"})
	q := newQueue()
	defer q.ShutDown()
	ctx := context.Background()

	h.Update(ctx, controller.UpdateEvent{ObjectOld: before, ObjectNew: after}, q)
	got := ctrltest.Drain(q)
	t.Logf("an update of a ConfigMap whose user label goes from x to y: the map function, run on old and new, enqueues %v", got)
	assert.Equal(t, []string{"ns/always", "ns/x", "ns/y"}, got)

	h.Create(ctx, controller.CreateEvent{Object: before}, q)
	h.Delete(ctx, controller.DeleteEvent{Object: after}, q)
	assert.Equal(t, []string{"ns/always", "ns/x", "ns/y"}, ctrltest.Drain(q))

	h.Generic(ctx, controller.GenericEvent{}, q)
	assert.Zero(t, q.Len(), "no object, nothing mapped")
}

// TestEventHandlerFuncsCallsOnlyWhatIsSet: nil functions ignore their events.
// Diagram: step 7. client-go: controller-runtime handler.Funcs.
func TestEventHandlerFuncsCallsOnlyWhatIsSet(t *testing.T) {
	var got []string
	h := controller.EventHandlerFuncs{
		UpdateFunc: func(_ context.Context, e controller.UpdateEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
			got = append(got, "update "+e.ObjectNew.GetName())
		},
		GenericFunc: func(_ context.Context, e controller.GenericEvent, _ workqueue.RateLimitingInterface[controller.Request]) {
			got = append(got, "generic "+e.Object.GetName())
		},
	}
	q := newQueue()
	defer q.ShutDown()
	ctx, a := context.Background(), ctrltest.NewCM("ns", "a")

	h.Create(ctx, controller.CreateEvent{Object: a}, q)
	h.Update(ctx, controller.UpdateEvent{ObjectOld: a, ObjectNew: a}, q)
	h.Delete(ctx, controller.DeleteEvent{Object: a}, q)
	h.Generic(ctx, controller.GenericEvent{Object: a}, q)

	assert.Equal(t, []string{"update a", "generic a"}, got)
}
