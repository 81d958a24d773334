// Command demo is the first thing to run in informerlab: it plays a scripted
// story on an embedded fake API server, with the project's sample controller
// (package samplecontroller: sample-controller's Foo, on a Manager with its
// informers and workqueue), and narrates every object as it crosses the
// client-go diagram, one line per step:
//
//	[1 list&watch] [2 → DeltaFIFO] [3 pop] [4/5 indexer] [6 handler]
//	[7 enqueue] [8 get key] [9 lister get] [reconcile] [API write]
//
// The command is its flags, its usage and the wiring: what it plays, and
// how, is package internal/demoengine (the embedded and remote worlds, the
// narrator, the scenarios and the page's controls).
//
// # Read next
//
// docs/README.md, the tour of the nine steps, then each package's Example.
package main
