// Package deltafifolab is lab 4: write the DeltaFIFO. See README.md; grade
// it with `go test` in this directory.
//
// Write the queue between the Reflector and the informer: a line of keys,
// each holding its object's recent history. It is what lets an informer
// survive a dropped watch: after a relist, `Replace` works out which
// objects vanished while nobody was watching and hands the consumer a
// tombstone for each, so no deletion is ever silently lost.
//
// Diagram steps 2 and 3: the Reflector adds objects, the informer
// pops them.
//
// Your code goes in delta_fifo.go; TestGrade (grade_test.go) grades it with
// labs/suite/deltafifosuite, the suite informerlab's own implementation passes.
package deltafifolab
