// Package pipelinetrace turns the pipeline's debug trace into typed
// events, in one place. The informers log one record per object at steps 2
// to 6 (informer/trace.go), and the Reflectors their state changes and
// backoffs; [Handler] is the slog.Handler of their logger, and hands each
// record, as an [Event], to every sink it was given.
//
// The demo's two renderers are such sinks: the terminal narration (package
// internal/demoengine) and the live page (internal/pipelineweb's
// Recorder.Trace). Neither reads a log message: a change in what the
// pipeline reports is made here, once, and both see it.
//
//	informers' and Reflectors' slog records --Handler--> Event --+--> narrator (terminal lines)
//	                                                             +--> Recorder (the page's Events)
//
// # Read next
//
// The test (go test -run TestParse ./internal/pipelinetrace) logs through a
// real informer and shows the events it makes.
package pipelinetrace
