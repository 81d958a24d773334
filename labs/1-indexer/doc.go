// Package indexerlab is lab 1: write the Indexer, the informer's cache.
// See README.md for the goal, the reading and the hints; grade it with
// `go test` in this directory.
//
// Write the informer's cache: a thread-safe store that keeps objects by key
// and files them in named indexes, so a controller can ask "which pods are
// on node n1?" without scanning everything. Then every later box of the
// diagram has somewhere to put objects.
//
// Diagram steps 4, 5 and 9: the informer writes objects into the
// Indexer, and Reconcile reads them back by key.
//
// Your code goes in indexer.go; TestGrade (grade_test.go) grades it with
// labs/suite/indexersuite, the suite informerlab's own implementation passes.
package indexerlab
