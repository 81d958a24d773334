// Package reflectorlab is lab 5: write the Reflector. See README.md; grade
// it with `go test` in this directory.
//
// Write the loop at the top of the diagram: list every ConfigMap, hand them
// to a Store, watch for changes from exactly the point the list was taken,
// and recover from every way the connection can end. This is where an
// informer earns or loses its users' trust: a Reflector that re-watches
// from the wrong resourceVersion silently misses changes; one that relists
// in a tight loop takes down the API server it depends on.
//
// Diagram steps 1 and 2: list and watch the API, add objects to
// the store.
//
// Your code goes in reflector.go; TestGrade (grade_test.go) grades it with
// labs/suite/reflectorsuite, the suite informerlab's own implementation passes.
package reflectorlab
