// Package workqueuelab is lab 2: write the workqueue. See README.md for
// the goal, the reading and the hints; grade it with `go test` in this
// directory.
//
// Write the queue between the event handlers and the reconcile workers:
// fair (first in, first out), stingy (an item added many times while it
// waits is handed out once), one worker per item (an item added while it is
// processed comes back after `Done`), and delaying (`AddAfter`). With it, a
// burst of a hundred events on one object becomes one reconcile, and two
// workers never reconcile the same object at once.
//
// Diagram steps 7 and 8: handlers add keys, workers get them.
//
// Your code goes in queue.go; TestGrade (grade_test.go) grades it with
// labs/suite/workqueuesuite, the suite informerlab's own implementation passes.
package workqueuelab
