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
//   - [Lab], in a lab's TestGrade: it prints a score and, for each
//     behaviour that does not pass, what was expected and where to read
//     about it:
//
//     grade: lab=2-workqueue passed=9 total=14 notstarted=3
//     2-workqueue: 9 of 14 behaviours pass (3 not started)
//     ✗ AddCollapsesWhileWaiting — want: adding a waiting item again does nothing (see docs/workqueue.md#...)
//     · ShutDownDrains — not started; want: ...
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
package grade
