// Package predicate filters events between step 6 and step 7: a source hands
// an event to its handler only if every predicate accepts it. The
// [controller.Predicate] interface is the core's; this package is the library
// of predicates worth knowing.
//
//	informer --6--> Kind source --predicates: worth a Reconcile?--> EventHandler --7--> queue
//
// # How it works
//
// A predicate answers one question per event kind: Create, Update, Delete,
// Generic. [Funcs] adapts plain functions (a nil function accepts);
// [NewPredicateFuncs] asks one question of the event's object.
//
// The one that matters most is [GenerationChangedPredicate]: the API server
// bumps metadata.generation only when spec changes, so a controller that
// writes its object's status does not wake itself up (the status hot loop;
// docs/controller.md). [LabelChangedPredicate],
// [AnnotationChangedPredicate] and [ResourceVersionChangedPredicate] pass
// other updates; [LabelSelectorPredicate] passes objects whose labels match;
// [And], [Or] and [Not] combine them.
//
// # Guarantees
//
//   - Predicates are pure functions of the event: no state, safe for
//     concurrent use.
//   - And() passes everything, Or() nothing; both stop at the first answer
//     that decides.
//
// # Differences from controller-runtime
//
//   - No generic Typed variants: events carry a [controller.Object].
//
// client-go files: controller-runtime pkg/predicate/predicate.go.
//
// # Read next
//
//	go test ./controller/predicate -run Example -v
//	go test ./controller -run 'TestStatusWritesLoopWithoutGenerationChangedPredicate|TestGenerationChangedPredicateStopsStatusHotLoop' -v
//
// Next: package controller's sources, which call predicates, and package
// builder's WithEventFilter.
package predicate
