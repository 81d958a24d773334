package demoengine

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informerlab/informerlab/internal/pipelinetrace"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// Step tags, one per box of the diagram a line describes.
const (
	tagList      = "1 list&watch"
	tagFIFO      = "2 → DeltaFIFO"
	tagPop       = "3 pop"
	tagIndexer   = "4/5 indexer"
	tagHandler   = "6 handler"
	tagEnqueue   = "7 enqueue"
	tagGetKey    = "8 get key"
	tagListerGet = "9 lister get"
	tagReconcile = "reconcile"
	tagWrite     = "API write"
	tagStory     = "story"
)

// tagColors are ANSI colours per tag, used only on a terminal.
var tagColors = map[string]string{
	tagList:      "\x1b[36m", // cyan
	tagFIFO:      "\x1b[34m", // blue
	tagPop:       "\x1b[34m",
	tagIndexer:   "\x1b[35m", // magenta
	tagHandler:   "\x1b[35m",
	tagEnqueue:   "\x1b[33m", // yellow
	tagGetKey:    "\x1b[33m",
	tagListerGet: "\x1b[32m", // green
	tagReconcile: "\x1b[32m",
	tagWrite:     "\x1b[31m", // red
	tagStory:     "\x1b[1m",  // bold
}

const colorReset = "\x1b[0m"

// narrator writes the transcript: one line per step an object takes through
// the diagram. It is safe for concurrent use; lines never interleave.
type narrator struct {
	color   bool
	verbose bool
	// clock, when set, prefixes every line with the time since start
	// (interactive mode only: the golden transcript has no times).
	clock func() time.Duration
	// lineDelay slows the story down (--speed below 1).
	lineDelay time.Duration

	// buffered (deterministic mode) holds step lines until flush, which the
	// gate calls each time everything has settled.
	buffered bool

	// web, when set, hears what the narrator hears: the controller's
	// Observer events and the informers' trace (world.go), for the page of
	// --web (web.go).
	web *pipelineweb.Recorder

	mu  sync.Mutex // guards out, lines and held
	out io.Writer
	// lines counts the step lines written, for the story's summary.
	lines int
	// held are the step lines written since the last flush, in buffered mode.
	held []heldLine
}

// heldLine is a step line waiting for flush, with the pipeline stage and
// the lane (goroutine) within it that wrote it.
type heldLine struct {
	stage, lane int
	text        string
}

// Pipeline stages, in causal order. In deterministic mode the lines written
// between two quiet moments are printed stage by stage, and within a stage
// lane by lane: each lane is one goroutine, whose own lines are in order,
// and each stage only reacts to the ones before it, so this is an order in
// which things could have happened — and the same on every run, whatever
// the scheduler did.
const (
	stageStory     = iota // the story itself: your writes, faults
	stageReflector        // steps 1 and 2: each informer's Reflector (lane: the kind)
	stageProcess          // steps 3 to 5: each informer's process loop (lane: the kind)
	stageHandler          // steps 6 and 7: each handler registration's goroutine
	stageWorker           // steps 8, 9, reconcile, the Foo controller's writes
	stageSimulator        // the Deployment simulator's worker
)

func stageOf(tag string) int {
	switch tag {
	case tagList, tagFIFO:
		return stageReflector
	case tagPop, tagIndexer:
		return stageProcess
	case tagHandler, tagEnqueue:
		return stageHandler
	case tagGetKey, tagListerGet, tagReconcile, tagWrite:
		return stageWorker
	}
	return stageStory
}

// laneOf is the lane of an informer's lines: Foos before Deployments.
func laneOf(kind string) int {
	switch kind {
	case "Foo":
		return 0
	case "Deployment":
		return 1
	}
	return 2
}

// flush prints the held lines, stage by stage (buffered mode).
func (n *narrator) flush() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.flushLocked()
}

func (n *narrator) flushLocked() {
	slices.SortStableFunc(n.held, func(a, b heldLine) int {
		if a.stage != b.stage {
			return a.stage - b.stage
		}
		return a.lane - b.lane
	})
	for _, l := range n.held {
		fmt.Fprint(n.out, l.text)
	}
	n.held = n.held[:0]
}

// step writes one line tagged with a diagram step.
func (n *narrator) step(tag, format string, args ...any) {
	n.write(stageOf(tag), 0, tag, fmt.Sprintf(format, args...))
}

// line writes one line for a stage and lane stageOf cannot tell from the tag.
func (n *narrator) line(stage, lane int, tag, format string, args ...any) {
	n.write(stage, lane, tag, fmt.Sprintf(format, args...))
}

// detail writes an indented line under the previous one of its lane, only
// in verbose mode.
func (n *narrator) detail(stage, lane int, format string, args ...any) {
	if !n.verbose {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range strings.Split(strings.TrimRight(fmt.Sprintf(format, args...), "\n"), "\n") {
		n.emitLocked(stage, lane, fmt.Sprintf("%s%*s%s\n", n.prefixLocked(), 17, "", l))
	}
}

func (n *narrator) emitLocked(stage, lane int, text string) {
	if n.buffered {
		n.held = append(n.held, heldLine{stage: stage, lane: lane, text: text})
		return
	}
	fmt.Fprint(n.out, text)
}

// chapter writes a chapter heading and its one-line explanation.
func (n *narrator) chapter(num int, title, explanation string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.flushLocked()
	head := fmt.Sprintf("== Chapter %d: %s ==", num, title)
	if n.color {
		head = tagColors[tagStory] + head + colorReset
	}
	fmt.Fprintf(n.out, "\n%s\n%s\n", head, explanation)
}

// say writes a plain line of prose.
func (n *narrator) say(format string, args ...any) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.flushLocked()
	fmt.Fprintf(n.out, format+"\n", args...)
}

func (n *narrator) write(stage, lane int, tag, msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lines++
	label := fmt.Sprintf("%-16s", "["+tag+"]")
	if n.color {
		label = tagColors[tag] + label + colorReset
	}
	n.emitLocked(stage, lane, fmt.Sprintf("%s%s %s\n", n.prefixLocked(), label, msg))
	if n.lineDelay > 0 {
		time.Sleep(n.lineDelay)
	}
}

// count returns how many step lines were written.
func (n *narrator) count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.lines
}

func (n *narrator) prefixLocked() string {
	if n.clock == nil {
		return ""
	}
	return fmt.Sprintf("%7.3fs ", n.clock().Seconds())
}

// traceNarrator narrates the pipeline's trace (package
// internal/pipelinetrace: the informers' records at steps 2-6, typed, each
// with its kind), one line per event. Step 6 is narrated by the
// controller's Observer instead, unless dispatch is set (the watch-only
// mode, which has no controller). Other events show only in verbose mode,
// as log lines.
type traceNarrator struct {
	n *narrator
	// kinds remembers the deltas each object last popped.
	kinds    *kindIndex
	dispatch bool
	// syncs, if set, counts popped Sync deltas (resyncs).
	syncs *atomic.Int64
}

// trace narrates one event of the trace.
func (h *traceNarrator) trace(e pipelinetrace.Event) {
	kind := cmpOr(e.Kind, "?")
	obj := kind + " " + e.Key
	lane := laneOf(kind)
	switch e.What {
	case pipelinetrace.Queued:
		h.n.line(stageReflector, lane, tagFIFO, "%s: %s delta queued", obj, pipelineweb.DeltaType(e.Op))
	case pipelinetrace.Listed:
		h.n.line(stageReflector, laneOf(kind), tagFIFO, "%s list: Replace(%d objects, rv %s): a Replaced delta each, a tombstone for every cached key not in the list",
			kind, e.Objects, e.RV)
	case pipelinetrace.Popped:
		if h.syncs != nil && slices.Contains(e.Deltas, "Sync") {
			h.syncs.Add(1)
		}
		h.kinds.popped(kind, e.Key, e.Deltas)
		initial := ""
		if e.InitialList {
			initial = " (in the initial list)"
		}
		h.n.line(stageProcess, lane, tagPop, "%s: popped deltas [%s]%s", obj, strings.Join(e.Deltas, " "), initial)
	case pipelinetrace.Stored:
		h.n.line(stageProcess, lane, tagIndexer, "%s: %s in the cache", obj, pipelineweb.CacheVerb(e.Op))
		if e.Op == "delete" {
			h.kinds.deleted(kind, e.Key)
		}
	case pipelinetrace.Dispatched:
		note := ""
		if e.Resync {
			note = " (same resourceVersion: " + h.kinds.unchangedBy(kind, e.Key) + "; like every unchanged update, only to handlers due a resync)"
		}
		if h.dispatch {
			h.n.line(stageProcess, lane, tagHandler, "%s: dispatch On%s to %d handler(s)%s", obj, capitalize(e.Notification), e.Handlers, note)
		} else {
			h.n.detail(stageProcess, lane, "(%s informer) dispatch On%s %s to %d handler(s)%s", kind, capitalize(e.Notification), e.Key, e.Handlers, note)
		}
	default:
		if h.n.verbose && e.Level >= slog.LevelInfo {
			stage, lane := h.logPlace(e.Message, e.Type, e.Controller)
			h.n.detail(stage, lane, "(log) %s", logText(e.Message, e.Own))
		}
	}
}

// logPlace puts a log line where its cause's lines are, so that it never
// prints before them: a Reflector's with its informer's step 1 lines, a
// controller's or the Manager's with the workers' lines (after the events
// that led to them).
func (h *traceNarrator) logPlace(msg, typ, controller string) (stage, lane int) {
	switch {
	case strings.HasPrefix(msg, "reflector:"):
		kind := ""
		switch {
		case strings.HasSuffix(typ, ".Foo"):
			kind = "Foo"
		case strings.HasSuffix(typ, ".Deployment"):
			kind = "Deployment"
		}
		return stageReflector, laneOf(kind)
	case controller == sc.SimulatorControllerName:
		return stageSimulator, 0
	}
	return stageWorker, 0
}

// logText renders a log record: its message, then its error, then its
// other attributes.
func logText(msg string, attrs []slog.Attr) string {
	var b strings.Builder
	b.WriteString(msg)
	var rest []string
	for _, a := range attrs {
		if a.Key == "err" {
			b.WriteString(": " + a.Value.String())
			continue
		}
		rest = append(rest, a.Key+"="+a.Value.String())
	}
	if len(rest) > 0 {
		b.WriteString(" (" + strings.Join(rest, ", ") + ")")
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
