package controller

// PredicateFuncs adapts plain functions to a [Predicate]. A nil function
// lets its events through: the zero PredicateFuncs accepts everything, so a
// predicate that only cares about updates sets UpdateFunc alone.
//
// client-go: controller-runtime pkg/predicate.Funcs.
type PredicateFuncs struct {
	CreateFunc  func(e CreateEvent) bool
	UpdateFunc  func(e UpdateEvent) bool
	DeleteFunc  func(e DeleteEvent) bool
	GenericFunc func(e GenericEvent) bool
}

// Create calls CreateFunc, or returns true if it is nil.
func (p PredicateFuncs) Create(e CreateEvent) bool {
	return p.CreateFunc == nil || p.CreateFunc(e)
}

// Update calls UpdateFunc, or returns true if it is nil.
func (p PredicateFuncs) Update(e UpdateEvent) bool {
	return p.UpdateFunc == nil || p.UpdateFunc(e)
}

// Delete calls DeleteFunc, or returns true if it is nil.
func (p PredicateFuncs) Delete(e DeleteEvent) bool {
	return p.DeleteFunc == nil || p.DeleteFunc(e)
}

// Generic calls GenericFunc, or returns true if it is nil.
func (p PredicateFuncs) Generic(e GenericEvent) bool {
	return p.GenericFunc == nil || p.GenericFunc(e)
}

// NewPredicateFuncs returns a predicate that asks filter about the event's
// object; for an update, about ObjectNew. An event without an object is
// dropped.
//
// client-go: controller-runtime pkg/predicate.NewPredicateFuncs.
func NewPredicateFuncs(filter func(obj Object) bool) PredicateFuncs {
	accept := func(obj Object) bool { return obj != nil && filter(obj) }
	return PredicateFuncs{
		CreateFunc:  func(e CreateEvent) bool { return accept(e.Object) },
		UpdateFunc:  func(e UpdateEvent) bool { return accept(e.ObjectNew) },
		DeleteFunc:  func(e DeleteEvent) bool { return accept(e.Object) },
		GenericFunc: func(e GenericEvent) bool { return accept(e.Object) },
	}
}

// And returns a predicate that passes an event when every one of predicates
// does (checked in order, stopping at the first false). And() passes
// everything.
//
// client-go: controller-runtime pkg/predicate.And.
func And(predicates ...Predicate) Predicate {
	return PredicateFuncs{
		CreateFunc:  func(e CreateEvent) bool { return allOf(predicates, func(p Predicate) bool { return p.Create(e) }) },
		UpdateFunc:  func(e UpdateEvent) bool { return allOf(predicates, func(p Predicate) bool { return p.Update(e) }) },
		DeleteFunc:  func(e DeleteEvent) bool { return allOf(predicates, func(p Predicate) bool { return p.Delete(e) }) },
		GenericFunc: func(e GenericEvent) bool { return allOf(predicates, func(p Predicate) bool { return p.Generic(e) }) },
	}
}

// Or returns a predicate that passes an event when at least one of
// predicates does (checked in order, stopping at the first true). Or() passes
// nothing.
//
// client-go: controller-runtime pkg/predicate.Or.
func Or(predicates ...Predicate) Predicate {
	return PredicateFuncs{
		CreateFunc:  func(e CreateEvent) bool { return anyOf(predicates, func(p Predicate) bool { return p.Create(e) }) },
		UpdateFunc:  func(e UpdateEvent) bool { return anyOf(predicates, func(p Predicate) bool { return p.Update(e) }) },
		DeleteFunc:  func(e DeleteEvent) bool { return anyOf(predicates, func(p Predicate) bool { return p.Delete(e) }) },
		GenericFunc: func(e GenericEvent) bool { return anyOf(predicates, func(p Predicate) bool { return p.Generic(e) }) },
	}
}

// Not returns a predicate that passes exactly the events p drops.
//
// client-go: controller-runtime pkg/predicate.Not.
func Not(p Predicate) Predicate {
	return PredicateFuncs{
		CreateFunc:  func(e CreateEvent) bool { return !p.Create(e) },
		UpdateFunc:  func(e UpdateEvent) bool { return !p.Update(e) },
		DeleteFunc:  func(e DeleteEvent) bool { return !p.Delete(e) },
		GenericFunc: func(e GenericEvent) bool { return !p.Generic(e) },
	}
}

func anyOf(predicates []Predicate, pass func(Predicate) bool) bool {
	for _, p := range predicates {
		if pass(p) {
			return true
		}
	}
	return false
}

func allOf(predicates []Predicate, pass func(Predicate) bool) bool {
	return !anyOf(predicates, func(p Predicate) bool { return !pass(p) })
}
