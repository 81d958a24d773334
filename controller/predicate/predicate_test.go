package predicate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/controller"
	"github.com/informerlab/informerlab/controller/internal/ctrltest"
	"github.com/informerlab/informerlab/controller/predicate"
)

// version returns a copy of obj changed by edit.
func version(obj *unstructured.Unstructured, edit func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	u := obj.DeepCopy()
	edit(u)
	return u
}

// TestChangedPredicatesFilterUpdates: each "changed" predicate passes an
// update only when its field differs between the two objects, drops an
// update missing either object, and passes creates, deletes and generic
// events untouched.
// Diagram: step 6-7 boundary. client-go: controller-runtime predicate.{Generation,ResourceVersion,Label,Annotation}ChangedPredicate.
func TestChangedPredicatesFilterUpdates(t *testing.T) {
	base := ctrltest.NewCM("ns", "a")
	base.SetGeneration(1)
	base.SetResourceVersion("10")
	base.SetLabels(map[string]string{"app": "x"})
	base.SetAnnotations(map[string]string{"note": "x"})
	statusWrite := version(base, func(u *unstructured.Unstructured) { u.SetResourceVersion("11") })
	specWrite := version(base, func(u *unstructured.Unstructured) { u.SetResourceVersion("11"); u.SetGeneration(2) })
	relabel := version(base, func(u *unstructured.Unstructured) {
		u.SetResourceVersion("11")
		u.SetLabels(map[string]string{"app": "y"})
	})
	reannotate := version(base, func(u *unstructured.Unstructured) { u.SetResourceVersion("11"); u.SetAnnotations(nil) })

	cases := []struct {
		name string
		p    controller.Predicate
		// which of: resync, statusWrite, specWrite, relabel, reannotate pass
		want [5]bool
	}{
		{"GenerationChanged", predicate.GenerationChangedPredicate{}, [5]bool{false, false, true, false, false}},
		{"ResourceVersionChanged", predicate.ResourceVersionChangedPredicate{}, [5]bool{false, true, true, true, true}},
		{"LabelChanged", predicate.LabelChangedPredicate{}, [5]bool{false, false, false, true, false}},
		{"AnnotationChanged", predicate.AnnotationChangedPredicate{}, [5]bool{false, false, false, false, true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got [5]bool
			for i, next := range []*unstructured.Unstructured{base, statusWrite, specWrite, relabel, reannotate} {
				got[i] = tc.p.Update(controller.UpdateEvent{ObjectOld: base, ObjectNew: next})
			}

			t.Logf("%-22s passes: resync %-5v status write %-5v spec write %-5v relabel %-5v reannotate %v", tc.name, got[0], got[1], got[2], got[3], got[4])
			assert.Equal(t, tc.want, got, "resync, status write, spec write, relabel, reannotate")
			assert.False(t, tc.p.Update(controller.UpdateEvent{ObjectNew: specWrite}), "no old object")
			assert.False(t, tc.p.Update(controller.UpdateEvent{ObjectOld: base}), "no new object")
			assert.True(t, tc.p.Create(controller.CreateEvent{Object: base}))
			assert.True(t, tc.p.Delete(controller.DeleteEvent{Object: base}))
			assert.True(t, tc.p.Generic(controller.GenericEvent{Object: base}))
		})
	}
}

// TestPredicateFuncsNilMeansTrue: the zero Funcs passes everything,
// and a set function decides its own events only.
// Diagram: step 6-7 boundary. client-go: controller-runtime predicate.Funcs.
func TestPredicateFuncsNilMeansTrue(t *testing.T) {
	a := ctrltest.NewCM("ns", "a")
	noDeletes := predicate.Funcs{DeleteFunc: func(controller.DeleteEvent) bool { return false }}

	assert.True(t, predicate.Funcs{}.Create(controller.CreateEvent{Object: a}))
	assert.True(t, predicate.Funcs{}.Update(controller.UpdateEvent{ObjectOld: a, ObjectNew: a}))
	assert.True(t, noDeletes.Create(controller.CreateEvent{Object: a}))
	assert.True(t, noDeletes.Generic(controller.GenericEvent{Object: a}))
	assert.False(t, noDeletes.Delete(controller.DeleteEvent{Object: a}))
}

// TestNewPredicateFuncsFiltersOnObject: the filter sees the event's object,
// for an update the new one; events without an object are dropped.
// Diagram: step 6-7 boundary. client-go: controller-runtime predicate.NewPredicateFuncs.
func TestNewPredicateFuncsFiltersOnObject(t *testing.T) {
	inNS := predicate.NewPredicateFuncs(func(obj controller.Object) bool { return obj.GetNamespace() == "keep" })
	keep, drop := ctrltest.NewCM("keep", "a"), ctrltest.NewCM("drop", "a")

	assert.True(t, inNS.Create(controller.CreateEvent{Object: keep}))
	assert.False(t, inNS.Create(controller.CreateEvent{Object: drop}))
	assert.True(t, inNS.Update(controller.UpdateEvent{ObjectOld: drop, ObjectNew: keep}))
	assert.False(t, inNS.Update(controller.UpdateEvent{ObjectOld: keep, ObjectNew: drop}))
	assert.True(t, inNS.Delete(controller.DeleteEvent{Object: keep}))
	assert.False(t, inNS.Generic(controller.GenericEvent{Object: drop}))
	assert.False(t, inNS.Generic(controller.GenericEvent{}))
}

// TestLabelSelectorPredicateMatchesLabels: events pass when the object's
// labels match the selector; an invalid selector is an error.
// Diagram: step 6-7 boundary. client-go: controller-runtime predicate.LabelSelectorPredicate.
func TestLabelSelectorPredicateMatchesLabels(t *testing.T) {
	p, err := predicate.LabelSelectorPredicate(metav1.LabelSelector{
		MatchLabels:      map[string]string{"app": "web"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}},
	})
	require.NoError(t, err)
	web, db, none := ctrltest.NewCM("ns", "web"), ctrltest.NewCM("ns", "db"), ctrltest.NewCM("ns", "none")
	web.SetLabels(map[string]string{"app": "web", "tier": "front"})
	db.SetLabels(map[string]string{"app": "web", "tier": "db"})

	assert.True(t, p.Create(controller.CreateEvent{Object: web}))
	assert.False(t, p.Create(controller.CreateEvent{Object: db}))
	assert.False(t, p.Update(controller.UpdateEvent{ObjectOld: web, ObjectNew: none}))
	assert.True(t, p.Delete(controller.DeleteEvent{Object: web}))

	_, err = predicate.LabelSelectorPredicate(metav1.LabelSelector{
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Sometimes"}},
	})
	assert.ErrorContains(t, err, "controller: invalid label selector")
	t.Logf("app=web, tier notin (db): web (tier=front) passes %v, db (tier=db) passes %v; a bad operator: %v", p.Create(controller.CreateEvent{Object: web}), p.Create(controller.CreateEvent{Object: db}), err)
}

// TestAndOrNotCombinePredicates: And needs every predicate and stops at the
// first false; Or needs one and stops at the first true; Not inverts. And()
// passes everything, Or() nothing.
// Diagram: step 6-7 boundary. client-go: controller-runtime predicate.And, Or, Not.
func TestAndOrNotCombinePredicates(t *testing.T) {
	var asked []string
	spy := func(name string, answer bool) controller.Predicate {
		return predicate.Funcs{CreateFunc: func(controller.CreateEvent) bool {
			asked = append(asked, name)
			return answer
		}}
	}
	e := controller.CreateEvent{Object: ctrltest.NewCM("ns", "a")}

	assert.False(t, predicate.And(spy("t1", true), spy("f1", false), spy("t2", true)).Create(e))
	assert.Equal(t, []string{"t1", "f1"}, asked, "And stops at the first false")
	t.Logf("And(true, false, true) asked %v: it stops at the first false", asked)
	asked = nil
	assert.True(t, predicate.Or(spy("f1", false), spy("t1", true), spy("f2", false)).Create(e))
	assert.Equal(t, []string{"f1", "t1"}, asked, "Or stops at the first true")
	t.Logf("Or(false, true, false) asked %v: it stops at the first true", asked)
	assert.False(t, predicate.Not(spy("t", true)).Create(e))
	assert.True(t, predicate.Not(spy("f", false)).Create(e))
	assert.True(t, predicate.And().Create(e))
	assert.False(t, predicate.Or().Create(e))

	gen := predicate.GenerationChangedPredicate{}
	spec := version(ctrltest.NewCM("ns", "a"), func(u *unstructured.Unstructured) { u.SetGeneration(2) })
	labels := version(ctrltest.NewCM("ns", "a"), func(u *unstructured.Unstructured) { u.SetLabels(map[string]string{"x": "y"}) })
	specOrLabels := predicate.Or(gen, predicate.LabelChangedPredicate{})
	assert.True(t, specOrLabels.Update(controller.UpdateEvent{ObjectOld: ctrltest.NewCM("ns", "a"), ObjectNew: spec}))
	assert.True(t, specOrLabels.Update(controller.UpdateEvent{ObjectOld: ctrltest.NewCM("ns", "a"), ObjectNew: labels}))
	assert.False(t, predicate.And(gen, predicate.LabelChangedPredicate{}).Update(controller.UpdateEvent{ObjectOld: ctrltest.NewCM("ns", "a"), ObjectNew: spec}))
	assert.True(t, predicate.Not(gen).Update(controller.UpdateEvent{ObjectOld: ctrltest.NewCM("ns", "a"), ObjectNew: labels}))
}
