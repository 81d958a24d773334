// Package controllersuite is the graded behaviour of a Foo → Deployment
// controller (diagram steps 6 to 9): sample-controller's Foo, reconciled on
// informerlab's machinery.
//
// The implementation under test is only a Reconciler. [Behaviours] runs it
// inside the sample controller (samplecontroller.Options.Reconciler): the
// Manager, the two informers, the watch of the Foos and of the
// Deployments they control, the rate-limited queue and the
// DeploymentSimulator are informerlab's. Everything runs against fakeapi
// in a testing/synctest bubble, and every check reads the API server, as
// a user with kubectl would: the Deployment a Foo names exists, is
// controlled by the Foo and runs its replicas (1 by default); it follows
// the Foo when the Foo is scaled and comes back when someone deletes it;
// the Foo's status reports the available replicas; a Deployment someone
// else owns is left alone; and a deleted Foo takes its Deployment with it,
// through a finalizer.
//
// informerlab's FooReconciler runs this suite in
// samplecontroller/suite_test.go; labs/7-controller grades a learner's
// Reconciler with it. The suite's own tests also run a short Reconciler
// (simple_test.go) through it, to show the lab needs no more than that.
package controllersuite
