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
// The practices lab 7 teaches are graded too, from what the controller
// sends (its handles to the API record every write, its Observer every
// Reconcile's outcome; log.go): the status comes from the Deployment as
// its replicas become available, later and partly (no simulator runs in
// that behaviour); a Reconcile with nothing to change writes nothing; a
// scale is a patch or an update carrying the resourceVersion read, and
// keeps what others set; a missing spec.replicas is defaulted by the
// controller; a gone Foo is no error and is not retried; a Foo's cleanup
// takes a Deployment already gone as done and never deletes one it does
// not control (practice.go).
//
// How the controller reports on a Foo is graded as `kubectl get foo -o
// yaml` and `kubectl get events` show it (reporting.go; the Events are
// read back from the server's v1 events, which the Manager's broadcaster
// writes): an invalid spec (the bounds of the Foo CRD's schema) gets no
// Deployment, Ready False with reason InvalidSpec and a Warning Event, and
// a TerminalError, so it is not retried until it is edited; the status's
// observedGeneration and its Ready condition's follow every edit of the
// spec; Ready is True only when the Deployment's status is current and
// every replica is available, and its lastTransitionTime moves only when
// it flips; a Deployment the Foo does not control is a Warning Event
// ErrResourceExists; a Normal Event Synced is recorded when a Reconcile
// changed something, and no Event when it changed nothing.
//
// informerlab's FooReconciler runs this suite in
// samplecontroller/suite_test.go; labs/7-controller grades a learner's
// Reconciler with it. The suite's own tests also run a short Reconciler
// (simple_test.go) through it, to show the lab needs no more than that.
package controllersuite
