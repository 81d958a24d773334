package controller

// Predicate filters events before they reach an [EventHandler]: an event is
// handed on only if every predicate of its source returns true, evaluated in
// order, stopping at the first false. Predicates see the event, not the
// queue; they decide whether an event is worth a Reconcile at all.
//
// The most important one is [predicate.GenerationChangedPredicate]: without it, a
// controller that writes its object's status triggers an update event for
// its own write, reconciles again, writes status again... (see docs/controller.md).
//
// client-go: controller-runtime pkg/predicate.Predicate.
type Predicate interface {
	Create(e CreateEvent) bool
	Update(e UpdateEvent) bool
	Delete(e DeleteEvent) bool
	Generic(e GenericEvent) bool
}

func all(predicates []Predicate, pass func(Predicate) bool) bool {
	for _, p := range predicates {
		if !pass(p) {
			return false
		}
	}
	return true
}
