package informer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/informer"
)

// typedCM is the typed object of these tests: an Unstructured, as fakeapi
// serves ConfigMaps.
type typedCM = *unstructured.Unstructured

// typedSpy is a TypedResourceEventHandler that records each call as a line.
type typedSpy struct{ lines []string }

func (s *typedSpy) OnAdd(obj typedCM, isInInitialList bool) {
	line := "add " + obj.GetName()
	if isInInitialList {
		line += " initial"
	}
	s.lines = append(s.lines, line)
}

func (s *typedSpy) OnUpdate(oldObj, newObj typedCM) {
	s.lines = append(s.lines, "update "+oldObj.GetName()+"->"+newObj.GetName())
}

func (s *typedSpy) OnDelete(obj deltafifo.DeletedObject[typedCM]) {
	line := "delete " + obj.GetKey()
	if obj.FinalStateUnknown != nil {
		line += " (tombstone)"
	}
	if obj.OptionalObj == nil {
		line += " without object"
	}
	s.lines = append(s.lines, line)
}

// TestUntypedResourceEventHandlerHandsEveryFormOfDeleteAsADeletedObject:
// the adapter turns each of the three things an untyped OnDelete may get
// into one DeletedObject: the object itself, a tombstone with the last
// known state, and a tombstone without one; adds and updates pass through
// typed.
//
// Diagram: step 6. client-go: tools/cache typedResourceEventHandler
func TestUntypedResourceEventHandlerHandsEveryFormOfDeleteAsADeletedObject(t *testing.T) {
	spy := &typedSpy{}
	h := informer.UntypedResourceEventHandler[typedCM](spy)
	a, b := newCM("ns", "a", "1"), newCM("ns", "b", "1")

	h.OnAdd(a, true)
	h.OnUpdate(a, b)
	h.OnDelete(a)
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "ns/b", Obj: b})
	h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "ns/c"})

	assert.Equal(t, []string{
		"add a initial",
		"update a->b",
		"delete ns/a",
		"delete ns/b (tombstone)",
		"delete ns/c (tombstone) without object",
	}, spy.lines)
}

// TestUntypedResourceEventHandlerPanicsNamingBothTypesOnAnObjectOfAnotherType:
// a typed handler registered on an informer of another type is a wiring
// mistake; the adapter panics with an error that names what it expected
// and what it got, also for the object inside a tombstone.
//
// Diagram: step 6. client-go: tools/cache typedResourceEventHandler (a bare type assertion)
func TestUntypedResourceEventHandlerPanicsNamingBothTypesOnAnObjectOfAnotherType(t *testing.T) {
	h := informer.UntypedResourceEventHandler[typedCM](&typedSpy{})
	other := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "x"}}

	for name, call := range map[string]func(){
		"OnAdd":    func() { h.OnAdd(other, false) },
		"OnUpdate": func() { h.OnUpdate(other, other) },
		"OnDelete": func() { h.OnDelete(deltafifo.DeletedFinalStateUnknown{Key: "x", Obj: other}) },
	} {
		assert.PanicsWithError(t,
			"informer: a typed handler of *unstructured.Unstructured got a *v1.PartialObjectMetadata in "+name+
				"; register it on an informer of *unstructured.Unstructured",
			call, name)
	}
}

// TestTypedFuncsCallOnlyTheFunctionsThatAreSet: the zero value of either
// typed funcs adapter ignores every notification, and a set function gets
// its notification, the detailed AddFunc with isInInitialList.
//
// Diagram: step 6. client-go: tools/cache TypedResourceEventHandlerFuncs, TypedResourceEventHandlerDetailedFuncs
func TestTypedFuncsCallOnlyTheFunctionsThatAreSet(t *testing.T) {
	a := newCM("ns", "a", "1")
	var got []string
	funcs := informer.TypedResourceEventHandlerFuncs[typedCM]{
		AddFunc: func(obj typedCM) { got = append(got, "add "+obj.GetName()) },
	}
	detailed := informer.TypedResourceEventHandlerDetailedFuncs[typedCM]{
		AddFunc: func(obj typedCM, initial bool) {
			got = append(got, "detailed add "+obj.GetName()+map[bool]string{true: " initial", false: ""}[initial])
		},
		DeleteFunc: func(obj deltafifo.DeletedObject[typedCM]) { got = append(got, "detailed delete "+obj.GetKey()) },
	}

	for _, h := range []informer.TypedResourceEventHandler[typedCM]{
		informer.TypedResourceEventHandlerFuncs[typedCM]{},
		informer.TypedResourceEventHandlerDetailedFuncs[typedCM]{},
		funcs, detailed,
	} {
		h.OnAdd(a, true)
		h.OnUpdate(a, a)
		h.OnDelete(deltafifo.DeletedObject[typedCM]{OptionalObj: a})
	}

	assert.Equal(t, []string{"add a", "detailed add a initial", "detailed delete ns/a"}, got)
}

// TestTypedFilteringHandlerSeesTheFilteredSetChange: an update that brings
// an object into the filter is an add, one that takes it out a delete of
// the old object, one within it an update, one outside nothing; an add or
// delete passes only if accepted, and a nil filter accepts everything.
//
// Diagram: step 6. client-go: tools/cache TypedFilteringResourceEventHandler
func TestTypedFilteringHandlerSeesTheFilteredSetChange(t *testing.T) {
	in, out := newCM("ns", "in", "1"), newCM("ns", "out", "1")
	spy := &typedSpy{}
	f := informer.TypedFilteringResourceEventHandler[typedCM]{
		FilterFunc: func(obj typedCM) bool { return obj == in },
		Handler:    spy,
	}

	f.OnUpdate(out, in)
	f.OnUpdate(in, out)
	f.OnUpdate(in, in)
	f.OnUpdate(out, out)
	f.OnAdd(out, true)
	f.OnDelete(deltafifo.DeletedObject[typedCM]{OptionalObj: out})
	f.OnDelete(deltafifo.DeletedObject[typedCM]{OptionalObj: in})
	informer.TypedFilteringResourceEventHandler[typedCM]{Handler: spy}.OnAdd(out, false)

	assert.Equal(t, []string{
		"add in",
		"delete ns/in",
		"update in->in",
		"delete ns/in",
		"add out",
	}, spy.lines)
}

// TestTypedFilteringHandlerAsksTheFilterAboutATombstoneWithoutObject: on a
// tombstone without an object the filter gets the zero T, a nil pointer,
// and decides; the handler still gets the key.
//
// Diagram: step 6. client-go: tools/cache TypedFilteringResourceEventHandler.OnDelete
func TestTypedFilteringHandlerAsksTheFilterAboutATombstoneWithoutObject(t *testing.T) {
	spy := &typedSpy{}
	var asked []typedCM
	f := informer.TypedFilteringResourceEventHandler[typedCM]{
		FilterFunc: func(obj typedCM) bool { asked = append(asked, obj); return true },
		Handler:    spy,
	}

	f.OnDelete(deltafifo.DeletedObject[typedCM]{FinalStateUnknown: &deltafifo.DeletedFinalStateUnknown{Key: "ns/gone"}})

	require.Len(t, asked, 1)
	assert.Nil(t, asked[0])
	assert.Equal(t, []string{"delete ns/gone (tombstone) without object"}, spy.lines)
}
