package pipelineweb

// The tags of the text demo's lines (cmd/demo narrate.go), one per box of
// the diagram. An Event carries the same tag, so the page and the terminal
// use the same words; a test in cmd/demo checks that the two lists agree.
const (
	TagList      = "1 list&watch"
	TagFIFO      = "2 → DeltaFIFO"
	TagPop       = "3 pop"
	TagIndexer   = "4/5 indexer"
	TagHandler   = "6 handler"
	TagEnqueue   = "7 enqueue"
	TagGetKey    = "8 get key"
	TagListerGet = "9 lister get"
	TagReconcile = "reconcile"
	TagWrite     = "API write"
	TagStory     = "story"
)

// The arrows of the diagram an Event moves a token along: the nine numbered
// steps, and two unnumbered ones the page draws dashed.
const (
	ArrowList    = "1"   // API server -> Reflector: a LIST result or a watch event
	ArrowAdd     = "2"   // Reflector -> DeltaFIFO
	ArrowPop     = "3"   // DeltaFIFO -> Informer
	ArrowStore   = "4-5" // Informer -> Indexer -> thread-safe store
	ArrowDisp    = "6"   // Informer -> handlers
	ArrowEnqueue = "7"   // handlers -> workqueue
	ArrowGetKey  = "8"   // workqueue -> worker
	ArrowGet     = "9"   // worker -> Indexer (Get object for key)
	ArrowWrite   = "write"
	ArrowRetry   = "retry" // worker -> workqueue: AddRateLimited after a failure
)

// Op says what an Event is; the page and the [Model] switch on it.
type Op string

// The operations, in the order one change meets them.
const (
	OpList       Op = "list"        // a LIST returned (Key empty) or listed Key
	OpWatch      Op = "watch"       // a WATCH was opened, refused or ended
	OpWatchEvent Op = "watch-event" // a watch event reached the Reflector
	OpReflector  Op = "reflector"   // the Reflector changed state
	OpReplace    Op = "replace"     // a LIST's result went into the DeltaFIFO
	OpQueued     Op = "queued"      // a delta was queued in the DeltaFIFO
	OpPop        Op = "pop"         // the process loop popped a key's Deltas
	OpStore      Op = "store"       // the cache was written
	OpDispatch   Op = "dispatch"    // the informer notified its handlers
	OpHandler    Op = "handler"     // a handler ran (and its predicate decided)
	OpEnqueue    Op = "enqueue"     // a Request was added to the workqueue
	OpGetKey     Op = "get-key"     // a worker took a Request
	OpListerGet  Op = "lister-get"  // the Reconciler read the cache
	OpAPIWrite   Op = "api-write"   // the Reconciler wrote to the API server
	OpReconcile  Op = "reconcile"   // a Reconcile returned
	OpBackoff    Op = "backoff"     // a failed Request waits its backoff
	OpYou        Op = "you"         // a write made from the page's controls
	OpFault      Op = "fault"       // a fault was injected
	OpStory      Op = "story"       // a chapter of a scenario began, or prose
	OpControl    Op = "control"     // pause, step, speed
)

// Event is one thing that happened in the running pipeline, as the page
// receives it (JSON). Seq and Time are set by [Hub.Publish]; Tag, Text, Kind
// and Key are what the page shows; the rest is structured detail the [Model]
// and the page's inspector use. Which fields are set depends on Op.
type Event struct {
	// Seq numbers the events of one Hub from 1, in publishing order.
	Seq uint64 `json:"seq"`
	// Time is when the event was published, in Unix milliseconds.
	Time int64 `json:"t"`

	Op    Op     `json:"op"`
	Tag   string `json:"tag,omitempty"`
	Arrow string `json:"arrow,omitempty"`
	// Kind is Foo or Deployment (or a resource name); Key is the object's
	// namespace/name, or the Request's.
	Kind string `json:"kind,omitempty"`
	Key  string `json:"key,omitempty"`
	Text string `json:"text"`

	// Controller names the controller of OpHandler to OpBackoff events.
	Controller string `json:"controller,omitempty"`
	// Verb: for OpHandler the notification (add, update, resync, delete,
	// delete (state unknown)); for OpStore add, update or delete; for
	// OpAPIWrite and OpYou the write; for OpWatchEvent the event type; for
	// OpReconcile the outcome (done, requeue, error, terminal).
	Verb string `json:"verb,omitempty"`
	// Deltas are the delta types of OpQueued (one) and OpPop (all popped).
	Deltas []string `json:"deltas,omitempty"`
	// Tombstone marks a queued or popped deletion a relist inferred.
	Tombstone bool `json:"tombstone,omitempty"`
	// RV is a resourceVersion: of the object, the list or the watch start.
	RV string `json:"rv,omitempty"`
	// State and Cause are an OpReflector transition's new state and why.
	State string `json:"state,omitempty"`
	Cause string `json:"cause,omitempty"`
	// DelayMS is an OpBackoff's (or a Reflector backoff's) delay;
	// Failures how many times in a row the Request has failed.
	DelayMS  float64 `json:"delayMs,omitempty"`
	Failures int     `json:"failures,omitempty"`
	// Dropped marks an OpHandler event a predicate dropped. Count is an
	// OpDispatch's number of handlers, or the objects of a LIST or Replace.
	Dropped bool `json:"dropped,omitempty"`
	Count   int  `json:"count,omitempty"`
	// Err is the error of a failed write or Reconcile.
	Err string `json:"err,omitempty"`
}
