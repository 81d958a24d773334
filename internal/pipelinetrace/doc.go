// Package pipelinetrace turns what the running pipeline reports into typed
// events, in one place: a [Stream].
//
//   - step 1: [Stream.ListerWatcher] wraps an informer's ListerWatcher, and
//     every LIST, WATCH and watch event becomes an [Event] (ListDone,
//     WatchEvent, ...), before the Reflector gets it;
//   - steps 2 to 6: the informers log one record per object
//     (informer/trace.go), and the Reflectors their state changes and
//     backoffs; [Stream.Handler] is the slog.Handler of their logger and
//     makes each record an Event (Queued, Popped, ...).
//
// The Stream names every event's kind (Foo, Deployment): the
// ListerWatchers know theirs, and it remembers which one delivered each
// key, for the trace records, which carry only the key. It hands each
// Event to every sink, in order. Steps 6 to 9 come typed already: the
// sample controller's Observer events.
//
// The demo's two renderers are such sinks: the terminal narration (package
// internal/demoengine) and the live page (internal/pipelineweb's
// Recorder.Trace). Neither reads a log message: a change in what the
// pipeline reports is made here, once, and both see it.
//
//	LIST, WATCH, watch events --------Stream.ListerWatcher--+
//	informers' and Reflectors' records --Stream.Handler-----+--> Event --+--> narrator (terminal lines)
//	                                                                     +--> Recorder (the page's Events)
//
// # Read next
//
// The tests (go test -v ./internal/pipelinetrace) run a real informer with
// both taps and show the events they make.
package pipelinetrace
