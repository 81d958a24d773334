// Command labs shows a learner's progress through informerlab's labs.
//
// Each lab in labs/ is a skeleton of one component (the Indexer, the
// workqueue, ..., a controller) and a grader: the behavioural suite
// informerlab's own implementation passes. This command runs every
// lab's grader (go test -json ./labs/<lab>/) and sums the results up in
// one table:
//
//	lab             pass  fail  not started  of                status
//	1-indexer       16    0     0            16  [##########]  done ✓
//	2-workqueue     10    5     0            15  [######....]  in progress
//	3-ratelimiters  0     0     12           12  [..........]  not started
//
// Name labs (by name or number: `go run ./cmd/labs 2`) to also see, for
// each behaviour that does not pass, what is expected and which section
// of docs/ explains it.
//
// Two flags are for CI, and prove the labs are fair: --reference grades
// informerlab's own implementation (wired in by the labs_reference build
// tag) and fails unless every lab scores 100%; --check-skeletons grades
// the untouched skeletons and fails unless every lab compiles and scores
// zero, every behaviour "not started".
package main
