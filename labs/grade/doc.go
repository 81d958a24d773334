// Package grade turns a list of behaviours into a grader.
//
// informerlab's labs hand a learner a skeleton of one component (the
// Indexer, the workqueue, the DeltaFIFO, ...) and grade what they write
// with the very tests informerlab's own implementation passes. Those tests
// live in shared suites (labs/suite/...): each suite takes the component's
// constructors and returns a []Behaviour, one per thing the component must
// do, each with a one-line Want and a link to the chapter of docs/ that
// explains it.
//
// The same list is run two ways:
//
//   - [Reference], in the reference package's own tests: every behaviour
//     must pass, and every Doc link must lead to a heading. The grader can
//     never ask for something the reference does not do.
//
//   - [Lab], in a lab's TestGrade: it prints, for each behaviour that does
//     not pass, the first lines of what went wrong, what was expected and
//     where to read about it, and then the score, last:
//
//     grade: report lab=2-workqueue
//     ✗ AddCollapsesWhileWaiting
//     suite.go:88: Not equal: expected 3, actual 6
//     ✗ AddCollapsesWhileWaiting — want: adding a waiting item again does nothing (see docs/...)
//     · ShutDownDrains — not started; want: ...
//     grade: lab=2-workqueue passed=9 total=14 notstarted=3
//     2-workqueue: 9 of 14 behaviours pass (3 not started)
//
// Each behaviour runs on a goroutine of its own, as a test of its own
// (testing.RunTests), under a real-time [Watchdog]. One that has not
// finished when it fires — a waiter nobody wakes, a lock never released,
// a loop that never blocks — is failed as hung, with the stacks of the
// graded package's goroutines; so is one whose synctest bubble deadlocks.
// Grading goes on, and a test binary with a hung behaviour left running
// ends as soon as the report is printed.
//
// A skeleton's functions panic with [NotImplemented]; the grader counts a
// behaviour that hits one as "not started" rather than failed, so an
// untouched skeleton scores zero and its test is skipped (the project's
// `go test ./...` stays green). Built with the labs_reference tag, the labs
// wire informerlab's implementation in instead of the skeleton, and Lab
// demands a full score: that is how CI proves every lab can be solved.
//
// Suites that run the learner's code on several goroutines start them with
// [Go], so a panic there fails one behaviour instead of the whole run.
//
// Each suite keeps a catalogue of plausible learner mistakes ([Mistake]),
// each a small wrong implementation, and proves with [CatchesMistakes]
// that the behaviours it names fail for every one of them, in a child
// process bounded in time ([FailedInChild]).
package grade
