// Package ctrltest is what the controller box's tests share: a fakeapi
// server per test, ConfigMaps to reconcile, a recording Reconciler with a
// script of outcomes, Managers over a server, and a typed kind (Widget) for
// the Client. Only tests import it.
package ctrltest
