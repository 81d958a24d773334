package predicate

import "github.com/informerlab/informerlab/controller"

// Funcs adapts plain functions to a [controller.Predicate]. A nil function
// lets its events through: the zero Funcs accepts everything, so a
// predicate that only cares about updates sets UpdateFunc alone.
//
// client-go: controller-runtime pkg/predicate.Funcs.
type Funcs struct {
	CreateFunc  func(e controller.CreateEvent) bool
	UpdateFunc  func(e controller.UpdateEvent) bool
	DeleteFunc  func(e controller.DeleteEvent) bool
	GenericFunc func(e controller.GenericEvent) bool
}

// Create calls CreateFunc, or returns true if it is nil.
func (p Funcs) Create(e controller.CreateEvent) bool {
	return p.CreateFunc == nil || p.CreateFunc(e)
}

// Update calls UpdateFunc, or returns true if it is nil.
func (p Funcs) Update(e controller.UpdateEvent) bool {
	return p.UpdateFunc == nil || p.UpdateFunc(e)
}

// Delete calls DeleteFunc, or returns true if it is nil.
func (p Funcs) Delete(e controller.DeleteEvent) bool {
	return p.DeleteFunc == nil || p.DeleteFunc(e)
}

// Generic calls GenericFunc, or returns true if it is nil.
func (p Funcs) Generic(e controller.GenericEvent) bool {
	return p.GenericFunc == nil || p.GenericFunc(e)
}

// NewPredicateFuncs returns a predicate that asks filter about the event's
// object; for an update, about ObjectNew. An event without an object is
// dropped.
//
// client-go: controller-runtime pkg/predicate.NewPredicateFuncs.
func NewPredicateFuncs(filter func(obj controller.Object) bool) Funcs {
	accept := func(obj controller.Object) bool { return obj != nil && filter(obj) }
	return Funcs{
		CreateFunc:  func(e controller.CreateEvent) bool { return accept(e.Object) },
		UpdateFunc:  func(e controller.UpdateEvent) bool { return accept(e.ObjectNew) },
		DeleteFunc:  func(e controller.DeleteEvent) bool { return accept(e.Object) },
		GenericFunc: func(e controller.GenericEvent) bool { return accept(e.Object) },
	}
}

// And returns a predicate that passes an event when every one of predicates
// does (checked in order, stopping at the first false). And() passes
// everything.
//
// client-go: controller-runtime pkg/predicate.And.
func And(predicates ...controller.Predicate) controller.Predicate {
	return Funcs{
		CreateFunc: func(e controller.CreateEvent) bool {
			return allOf(predicates, func(p controller.Predicate) bool { return p.Create(e) })
		},
		UpdateFunc: func(e controller.UpdateEvent) bool {
			return allOf(predicates, func(p controller.Predicate) bool { return p.Update(e) })
		},
		DeleteFunc: func(e controller.DeleteEvent) bool {
			return allOf(predicates, func(p controller.Predicate) bool { return p.Delete(e) })
		},
		GenericFunc: func(e controller.GenericEvent) bool {
			return allOf(predicates, func(p controller.Predicate) bool { return p.Generic(e) })
		},
	}
}

// Or returns a predicate that passes an event when at least one of
// predicates does (checked in order, stopping at the first true). Or() passes
// nothing.
//
// client-go: controller-runtime pkg/predicate.Or.
func Or(predicates ...controller.Predicate) controller.Predicate {
	return Funcs{
		CreateFunc: func(e controller.CreateEvent) bool {
			return anyOf(predicates, func(p controller.Predicate) bool { return p.Create(e) })
		},
		UpdateFunc: func(e controller.UpdateEvent) bool {
			return anyOf(predicates, func(p controller.Predicate) bool { return p.Update(e) })
		},
		DeleteFunc: func(e controller.DeleteEvent) bool {
			return anyOf(predicates, func(p controller.Predicate) bool { return p.Delete(e) })
		},
		GenericFunc: func(e controller.GenericEvent) bool {
			return anyOf(predicates, func(p controller.Predicate) bool { return p.Generic(e) })
		},
	}
}

// Not returns a predicate that passes exactly the events p drops.
//
// client-go: controller-runtime pkg/predicate.Not.
func Not(p controller.Predicate) controller.Predicate {
	return Funcs{
		CreateFunc:  func(e controller.CreateEvent) bool { return !p.Create(e) },
		UpdateFunc:  func(e controller.UpdateEvent) bool { return !p.Update(e) },
		DeleteFunc:  func(e controller.DeleteEvent) bool { return !p.Delete(e) },
		GenericFunc: func(e controller.GenericEvent) bool { return !p.Generic(e) },
	}
}

func anyOf(predicates []controller.Predicate, pass func(controller.Predicate) bool) bool {
	for _, p := range predicates {
		if pass(p) {
			return true
		}
	}
	return false
}

func allOf(predicates []controller.Predicate, pass func(controller.Predicate) bool) bool {
	return !anyOf(predicates, func(p controller.Predicate) bool { return !pass(p) })
}
