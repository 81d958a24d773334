package pipelineweb

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxListedKeys bounds the per-key events one LIST or Replace publishes; a
// bigger list is summed up in one line.
const maxListedKeys = 50

// Handler returns a slog.Handler for the informers' logger: it turns their
// debug trace (informer/trace.go: one record per object at steps 2 to 6)
// and their Reflectors' state changes into Events. Other records are
// ignored. Tee it with the text demo's handler to have both.
func (r *Recorder) Handler() slog.Handler { return &traceHandler{r: r} }

type traceHandler struct {
	r     *Recorder
	attrs []slog.Attr // from WithAttrs: the Reflector's name and type
}

func (h *traceHandler) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelDebug
}

func (h *traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &traceHandler{r: h.r, attrs: append(slices.Clip(h.attrs), attrs...)}
}

func (h *traceHandler) WithGroup(string) slog.Handler { return h }

func (h *traceHandler) Handle(_ context.Context, rec slog.Record) error {
	attrs := map[string]slog.Value{}
	for _, a := range h.attrs {
		attrs[a.Key] = a.Value
	}
	rec.Attrs(func(a slog.Attr) bool {
		attrs[a.Key] = a.Value
		return true
	})
	str := func(k string) string {
		if v, ok := attrs[k]; ok {
			return v.String()
		}
		return ""
	}
	key := str("key")
	kind := h.r.kinds.of(key)
	r := h.r
	switch msg := rec.Message; {
	case strings.HasPrefix(msg, "informer: step 2") && str("op") != "":
		t := DeltaType(str("op"))
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: kind, Key: key, Deltas: []string{t},
			Text: fmt.Sprintf("%s %s: %s delta queued", kind, key, t)})
	case strings.HasPrefix(msg, "informer: step 2"):
		n, _ := strconv.Atoi(str("objects"))
		r.replaced(n, str("resourceVersion"))
	case strings.HasPrefix(msg, "informer: step 3"):
		var types []string
		if v, ok := attrs["deltas"]; ok {
			types, _ = v.Any().([]string)
		}
		e := Event{Op: OpPop, Tag: TagPop, Arrow: ArrowPop, Kind: kind, Key: key, Deltas: types,
			Text: fmt.Sprintf("%s %s: popped deltas [%s]", kind, key, strings.Join(types, " "))}
		if len(types) > 0 && types[len(types)-1] == "Deleted" && r.tombstoneTaken(kind, key) {
			e.Tombstone = true
			e.Text += " (the Deleted delta holds a DeletedFinalStateUnknown tombstone)"
		}
		if str("isInInitialList") == "true" {
			e.Text += " (in the initial list)"
		}
		r.hub.Publish(e)
	case strings.HasPrefix(msg, "informer: steps 4-5"):
		op := str("op")
		r.hub.Publish(Event{Op: OpStore, Tag: TagIndexer, Arrow: ArrowStore, Kind: kind, Key: key, Verb: op,
			Text: fmt.Sprintf("%s %s: %s in the cache", kind, key, CacheVerb(op))})
	case strings.HasPrefix(msg, "informer: step 6"):
		n, _ := strconv.Atoi(str("handlers"))
		note := ""
		if str("resync") == "true" {
			note = " (same resourceVersion: a resync)"
		}
		r.hub.Publish(Event{Op: OpDispatch, Tag: TagHandler, Arrow: ArrowDisp, Kind: kind, Key: key, Count: n,
			Verb: str("notification"),
			Text: fmt.Sprintf("%s %s: dispatch On%s to %d handler(s)%s", kind, key, capitalize(str("notification")), n, note)})
	case msg == "reflector: state":
		kind := kindOfType(str("type"))
		r.hub.Publish(Event{Op: OpReflector, Tag: TagList, Kind: kind, State: str("to"), Cause: str("cause"),
			Text: fmt.Sprintf("%s Reflector: %s → %s (%s)", plural(kind), str("from"), str("to"), str("cause"))})
	case strings.HasPrefix(msg, "reflector: backing off before "):
		kind := kindOfType(str("type"))
		d, _ := time.ParseDuration(str("delay"))
		if v, ok := attrs["delay"]; ok && v.Kind() == slog.KindDuration {
			d = v.Duration()
		}
		r.hub.Publish(Event{Op: OpReflector, Tag: TagList, Kind: kind, DelayMS: durationMS(d),
			Text: fmt.Sprintf("%s Reflector: %s, waiting %s", plural(kind), strings.TrimPrefix(msg, "reflector: "), d.Round(time.Millisecond))})
	}
	return nil
}

// replaced publishes what a Replace of the LIST of n objects at rv queues,
// by DeltaFIFO.Replace's rules: a Replaced delta for every listed key, and a
// Deleted delta holding a tombstone for every key queued or cached that the
// list no longer has. The record comes just before Replace runs; the pops
// that follow show the same deltas.
func (r *Recorder) replaced(n int, rv string) {
	l, ok := r.kinds.replaced(n, rv)
	if !ok {
		return
	}
	listed := map[string]bool{}
	for _, k := range l.keys {
		listed[k] = true
	}
	var gone []string
	if r.model != nil {
		queued := r.model.queuedKeys(l.kind)
		for _, k := range queued {
			if !listed[k] {
				gone = append(gone, k)
			}
		}
		cached := r.model.cachedKeys(l.kind)
		slices.Sort(cached)
		for _, k := range cached {
			if !listed[k] && !slices.Contains(queued, k) {
				gone = append(gone, k)
			}
		}
	}
	r.hub.Publish(Event{Op: OpReplace, Tag: TagFIFO, Kind: l.kind, RV: rv, Count: n,
		Text: fmt.Sprintf("%s list: Replace(%d objects, rv %s): a Replaced delta each, a tombstone for every cached key not in the list (%d)",
			plural(l.kind), n, rv, len(gone))})
	for i, k := range l.keys {
		if i == maxListedKeys {
			break
		}
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: l.kind, Key: k, RV: rv, Deltas: []string{"Replaced"},
			Text: fmt.Sprintf("%s %s: Replaced delta queued (the list at rv %s has it)", l.kind, k, rv)})
	}
	for _, k := range gone {
		r.expectTombstone(l.kind, k)
		r.hub.Publish(Event{Op: OpQueued, Tag: TagFIFO, Arrow: ArrowAdd, Kind: l.kind, Key: k, RV: rv, Deltas: []string{"Deleted"}, Tombstone: true,
			Text: fmt.Sprintf("%s %s: Deleted delta queued with a DeletedFinalStateUnknown tombstone: the list at rv %s no longer has it", l.kind, k, rv)})
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
