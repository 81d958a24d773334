// Package recorder writes Events about objects — "Scaled deployment to 3",
// "Synced" — as core/v1 Events that `kubectl describe` and `kubectl get
// events` show. A Reconciler records them beside step 9; they never slow it
// down.
//
//	Reconcile --Event()--> EventRecorder --(never blocks)--> EventBroadcaster buffer
//	                                                              |
//	                                                  one goroutine: Create or Patch
//	                                                              v
//	                                                     the API server's events
//
// # How it works
//
//  1. [EventBroadcaster.NewRecorder] returns an [EventRecorder] for a
//     component name (the Event's source).
//  2. Event and Eventf put the Event in a bounded buffer; a repeat of one
//     that is waiting only raises its count. A full buffer drops and counts.
//  3. [EventBroadcaster.Start]'s goroutine writes each Event: the first time
//     a Create, a repeat a Patch of the count and lastTimestamp of the same
//     Event object. A failed write is retried twice, then given up and counted.
//  4. When Start's context ends, what is buffered is written within
//     FlushTimeout.
//
// A Manager owns one broadcaster ([manager.Manager.GetEventRecorderFor]) and
// stops it after its controllers, so their last Events are flushed.
//
// # Guarantees
//
//   - Recording never blocks and never fails the Reconcile: what cannot be
//     written is dropped and counted ([EventBroadcaster.Stats]).
//   - Invalid Events (a type other than Normal or Warning, an object without
//     a name or kind) are dropped with a warning, never written.
//   - EventBroadcaster and its recorders are safe for concurrent use.
//
// # Differences from client-go
//
//   - No aggregation of similar messages and no per-object rate limit: the
//     broadcaster counts exact repeats only.
//   - core/v1 Events, as client-go's tools/record writes them, not
//     events.k8s.io/v1.
//
// client-go files: tools/record/event.go, events_cache.go; controller-runtime
// pkg/recorder.
//
// # Read next
//
//	go test ./controller/recorder -run Example -v
//	go test ./controller/recorder -run 'TestEventRecorderCountsRepeatsOnOneEvent|TestEventRecorderNeverBlocksOnAStuckAPIServer' -v
//
// Next: package manager, which owns the broadcaster.
package recorder
