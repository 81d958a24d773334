// Package builder wires a controller into a Manager in a few calls: the
// informers of step 1 to 5 for every kind it names, the sources and
// handlers of steps 6 and 7, and the workers of step 8.
//
//	builder.New(mgr).
//	    For(foosGVR, &Foo{}).                      // a Foo's change reconciles that Foo
//	    Owns(deploymentsGVR, &Deployment{}).       // a Deployment's change reconciles its controller owner
//	    Watches(eventsGVR, &Event{}, handler).     // anything else, mapped by a handler
//	    WithEventFilter(predicate.GenerationChangedPredicate{}).
//	    Complete(reconciler)
//
// # How it works
//
//  1. For names the kind the controller reconciles; the controller is named
//     after it (Named overrides).
//  2. Owns adds a Kind source on the owned kind with an
//     [controller.EnqueueRequestForOwner] handler that follows the controller
//     owner reference back to a For object.
//  3. Watches adds a Kind source with any handler.
//  4. Complete (or Build) gets each kind's shared informer from the
//     Manager, makes the controller and adds it to the Manager, which starts
//     it once the cache has synced (and, with leader election, once
//     leading). Mistakes are collected and returned together.
//
// # Guarantees
//
//   - Complete reports every mistake it found at once (a nil handler or
//     reconciler, For twice, Owns without For, no watch at all, an example
//     object of the wrong kind), in one error.
//   - A Builder is for one goroutine; what it builds is safe for concurrent
//     use.
//
// # Differences from controller-runtime
//
//   - New(mgr) stands for ControllerManagedBy(mgr); kinds are named by their
//     resource and an example object, and no RESTMapper is used.
//   - Owns always follows the controller owner reference only, and the
//     owner is taken to be namespaced.
//
// client-go files: controller-runtime pkg/builder/controller.go.
//
// # Read next
//
//	go test ./controller/builder -run ExampleBuilder -v
//	go test ./controller/builder -run 'TestBuilderWiresForOwnsWatchesAndFilters|TestBuilderReportsMistakes' -v
//
// Next: package samplecontroller, the Foo controller built with it.
package builder
