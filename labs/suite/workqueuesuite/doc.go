// Package workqueuesuite is the graded behaviour of a delaying workqueue
// (diagram steps 7 and 8): what event handlers add keys to and reconcile
// workers take them from.
//
// A workqueue makes four promises, and [Behaviours] checks each:
//
//   - fair: items are handed out in the order they were added;
//   - stingy: an item added many times while it waits is handed out
//     once, so a burst of events becomes one reconcile;
//   - one worker per item: an item added while it is being processed
//     waits until its worker calls Done, then comes back;
//   - delaying: AddAfter makes an item waiting once its time has come, an
//     earlier time wins, and a shut-down queue drops what is still
//     waiting for its time.
//
// Plus shutting down: ShutDown wakes blocked workers and still hands out
// what was waiting; ShutDownWithDrain also waits for work in progress.
//
// Time-dependent behaviours run inside testing/synctest bubbles, so a
// second of delay takes no real time and the checks are exact. The queue
// is created inside the bubble; an implementation that starts goroutines
// must stop them on ShutDown, or the bubble reports them.
//
// informerlab's workqueue runs this suite in workqueue/suite_test.go;
// labs/2-workqueue grades a learner's queue with it.
package workqueuesuite
