// Package controllerlab is lab 7: write the Foo controller's Reconcile.
// See README.md; grade it with `go test` in this directory.
//
// Write the one piece of a controller that is yours in real life:
// Reconcile. sample-controller's Foo asks for a Deployment; your Reconcile
// makes it exist, keeps it at the Foo's replicas, reports its availability
// in the Foo's status, and cleans up when the Foo goes; it refuses an
// invalid spec without retrying it, keeps the status's observedGeneration
// and Ready condition, and records Events on the Foo. Everything around
// it — informers, watches, the queue, the Manager, a simulated Deployment
// controller — is informerlab's, wired exactly as the sample controller
// wires its own `FooReconciler`.
//
// Diagram steps 6 to 9: events become keys, a worker reconciles
// one, reading the cache for it.
//
// Your code goes in reconciler.go; TestGrade (grade_test.go) grades it with
// labs/suite/controllersuite, the suite informerlab's own implementation passes.
package controllerlab
