package pipelineweb

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/internal/pipelinetrace"
)

// maxListedKeys bounds the per-key events one LIST or Replace publishes; a
// bigger list is summed up in one line.
const maxListedKeys = 50

// Handler returns a slog.Handler for the informers' logger that records
// their trace on the page alone: the Handler of the Recorder's own
// pipelinetrace.Stream, whose only sink is Trace. Where the terminal
// narrates too, give both sinks to one Stream instead.
func (r *Recorder) Handler() slog.Handler { return r.stream.Handler() }

// Trace turns one event of the pipeline's trace into Events: step 1 (the
// ListerWatchers' calls and watch events), steps 2 to 6 of each object and
// the Reflectors' state changes. Log lines are not shown on the page.
func (r *Recorder) Trace(te pipelinetrace.Event) {
	key, kind := te.Key, te.Kind
	switch te.What {
	case pipelinetrace.ListFailed, pipelinetrace.ListDone, pipelinetrace.WatchRefused, pipelinetrace.WatchOpened,
		pipelinetrace.WatchEvent, pipelinetrace.WatchEnded:
		r.listWatch(te)
	case pipelinetrace.Queued:
		t := DeltaType(te.Op)
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: kind, Key: key, Deltas: []string{t},
			Text: fmt.Sprintf("%s %s: %s delta queued", kind, key, t)})
	case pipelinetrace.Listed:
		r.replaced(te)
	case pipelinetrace.Popped:
		types := te.Deltas
		e := Event{Op: OpPop, Tag: TagPop, Arrow: ArrowPop, Kind: kind, Key: key, Deltas: types,
			Text: fmt.Sprintf("%s %s: popped deltas [%s]", kind, key, strings.Join(types, " "))}
		if len(types) > 0 && types[len(types)-1] == "Deleted" && r.tombstoneTaken(kind, key) {
			e.Tombstone = true
			e.Text += " (the Deleted delta holds a DeletedFinalStateUnknown tombstone)"
		}
		if te.InitialList {
			e.Text += " (in the initial list)"
		}
		r.hub.Publish(e)
	case pipelinetrace.Stored:
		r.hub.Publish(Event{Op: OpStore, Tag: TagIndexer, Arrow: ArrowStore, Kind: kind, Key: key, Verb: te.Op,
			Text: fmt.Sprintf("%s %s: %s in the cache", kind, key, CacheVerb(te.Op))})
	case pipelinetrace.Dispatched:
		note := ""
		if te.Resync {
			note = " (same resourceVersion: a resync)"
		}
		r.hub.Publish(Event{Op: OpDispatch, Tag: TagHandler, Arrow: ArrowDisp, Kind: kind, Key: key, Count: te.Handlers,
			Verb: te.Notification,
			Text: fmt.Sprintf("%s %s: dispatch On%s to %d handler(s)%s", kind, key, capitalize(te.Notification), te.Handlers, note)})
	case pipelinetrace.ReflectorState:
		kind := kindOfType(te.Type)
		r.hub.Publish(Event{Op: OpReflector, Tag: TagList, Kind: kind, State: te.To, Cause: te.Cause,
			Text: fmt.Sprintf("%s Reflector: %s → %s (%s)", plural(kind), te.From, te.To, te.Cause)})
	case pipelinetrace.ReflectorBackoff:
		kind := kindOfType(te.Type)
		r.hub.Publish(Event{Op: OpReflector, Tag: TagList, Kind: kind, DelayMS: durationMS(te.Delay),
			Text: fmt.Sprintf("%s Reflector: %s, waiting %s", plural(kind), strings.TrimPrefix(te.Message, "reflector: "), te.Delay.Round(time.Millisecond))})
	}
}

// replaced publishes what a Replace of a LIST queues,
// by DeltaFIFO.Replace's rules: a Replaced delta for every listed key, and a
// Deleted delta holding a tombstone for every key queued or cached that the
// list no longer has. The record comes just before Replace runs; the pops
// that follow show the same deltas.
func (r *Recorder) replaced(te pipelinetrace.Event) {
	if te.Kind == "" {
		return // a Replace of no LIST the Stream saw
	}
	n, rv, kind, keys := te.Objects, te.RV, te.Kind, te.Keys
	listed := map[string]bool{}
	for _, k := range keys {
		listed[k] = true
	}
	var gone []string
	if r.model != nil {
		queued := r.model.queuedKeys(kind)
		for _, k := range queued {
			if !listed[k] {
				gone = append(gone, k)
			}
		}
		cached := r.model.cachedKeys(kind)
		slices.Sort(cached)
		for _, k := range cached {
			if !listed[k] && !slices.Contains(queued, k) {
				gone = append(gone, k)
			}
		}
	}
	r.hub.Publish(Event{Op: OpReplace, Tag: TagFIFO, Kind: kind, RV: rv, Count: n,
		Text: fmt.Sprintf("%s list: Replace(%d objects, rv %s): a Replaced delta each, a tombstone for every cached key not in the list (%d)",
			plural(kind), n, rv, len(gone))})
	for i, k := range keys {
		if i == maxListedKeys {
			break
		}
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: kind, Key: k, RV: rv, Deltas: []string{"Replaced"},
			Text: fmt.Sprintf("%s %s: Replaced delta queued (the list at rv %s has it)", kind, k, rv)})
	}
	for _, k := range gone {
		r.expectTombstone(kind, k)
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: kind, Key: k, RV: rv, Deltas: []string{"Deleted"}, Tombstone: true,
			Text: fmt.Sprintf("%s %s: Deleted delta queued with a DeletedFinalStateUnknown tombstone: the list at rv %s no longer has it", kind, k, rv)})
	}
}

func (r *Recorder) expectTombstone(kind, key string) {
	r.tmu.Lock()
	defer r.tmu.Unlock()
	if r.tombstones == nil {
		r.tombstones = map[string]bool{}
	}
	r.tombstones[kind+" "+key] = true
}

// tombstoneTaken reports and forgets whether a popped Deleted delta of key
// is a tombstone Replace queued.
func (r *Recorder) tombstoneTaken(kind, key string) bool {
	r.tmu.Lock()
	defer r.tmu.Unlock()
	k := kind + " " + key
	ok := r.tombstones[k]
	delete(r.tombstones, k)
	return ok
}

// kindOfType names the kind of a Reflector's expected type:
// "*samplecontroller.Foo" or "group/v1, Kind=Foo" -> "Foo".
func kindOfType(t string) string {
	if _, k, ok := strings.Cut(t, "Kind="); ok {
		return k
	}
	if i := strings.LastIndexByte(t, '.'); i >= 0 {
		return t[i+1:]
	}
	return strings.TrimPrefix(t, "*")
}

// plural names a kind's resource as the text demo does: "Foos".
func plural(kind string) string {
	if kind == "Foo" || kind == "Deployment" {
		return kind + "s"
	}
	return kind
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// listWatch publishes a step 1 event: a LIST's answer (and each listed
// key, up to maxListedKeys), a WATCH opened, refused or ended by the
// server, a watch event as it reaches the Reflector.
func (r *Recorder) listWatch(te pipelinetrace.Event) {
	say := func(e Event) {
		if e.Op == "" {
			e.Op = OpWatch
		}
		e.Tag, e.Kind = TagList, te.Kind
		r.hub.Publish(e)
	}
	resource := plural(te.Kind)
	switch te.What {
	case pipelinetrace.ListFailed:
		say(Event{Op: OpList, Verb: "failed", Err: te.Err.Error(),
			Text: fmt.Sprintf("%s: LIST (resourceVersion=%q) failed: %s", resource, te.RequestRV, errorSummary(te.Err))})
	case pipelinetrace.ListDone:
		keys := make([]string, 0, len(te.Items))
		for _, item := range te.Items {
			keys = append(keys, ObjectKey(item))
		}
		say(Event{Op: OpList, Arrow: ArrowList, RV: te.RV, Count: len(te.Items),
			Text: fmt.Sprintf("%s: LIST (resourceVersion=%q) → %d object(s) at rv %s", resource, te.RequestRV, len(te.Items), te.RV)})
		for i, item := range te.Items {
			if i == maxListedKeys {
				break
			}
			say(Event{Op: OpList, Arrow: ArrowList, Key: keys[i], RV: ObjectRV(item),
				Text: fmt.Sprintf("%s %s: listed, rv %s", te.Kind, keys[i], ObjectRV(item))})
		}
	case pipelinetrace.WatchRefused:
		say(Event{Verb: "refused", RV: te.RequestRV, Err: te.Err.Error(),
			Text: fmt.Sprintf("%s: WATCH from rv %s refused: %s", resource, te.RequestRV, errorSummary(te.Err))})
	case pipelinetrace.WatchOpened:
		say(Event{Verb: "open", RV: te.RequestRV,
			Text: fmt.Sprintf("%s: WATCH from rv %s (the server sends every change after it)", resource, te.RequestRV)})
	case pipelinetrace.WatchEnded:
		say(Event{Verb: "ended", RV: te.RV,
			Text: fmt.Sprintf("%s: the watch ended (connection closed by the server)", resource)})
	case pipelinetrace.WatchEvent:
		switch te.EventType {
		case watch.Error:
			say(Event{Op: OpWatchEvent, Verb: string(te.EventType), Err: errorSummary(te.Err),
				Text: fmt.Sprintf("%s: watch ERROR event: %s", resource, errorSummary(te.Err))})
		case watch.Bookmark:
		default:
			say(Event{Op: OpWatchEvent, Arrow: ArrowList, Key: te.Key, RV: te.RV, Verb: string(te.EventType),
				Text: fmt.Sprintf("%s: watch event %s %s rv %s", resource, te.EventType, te.Key, te.RV)})
		}
	}
}
