package recorder

import (
	"fmt"
	"time"

	"github.com/informerlab/informerlab/controller"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The two types of Event.
//
// client-go: k8s.io/api/core/v1.EventTypeNormal and EventTypeWarning.
const (
	EventTypeNormal  = "Normal"
	EventTypeWarning = "Warning"
)

// Defaults for the zero values of EventBroadcasterOptions.
const (
	DefaultEventBufferSize   = 1000
	DefaultEventFlushTimeout = 5 * time.Second
)

// eventsGVR is where Events are written: core v1 events.
var eventsGVR = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// EventRecorder records Events about objects, for people: `kubectl describe`
// and `kubectl get events` show them. Recording never blocks and never
// fails: an Event that cannot be buffered is dropped and counted.
//
//	recorder.Event(foo, recorder.EventTypeWarning, "ErrResourceExists", msg)
//
// eventtype is EventTypeNormal or EventTypeWarning; reason is a short
// UpperCamelCase word a program can match; message is for people. Record
// what changed or what went wrong, not every Reconcile.
//
// client-go: tools/record.EventRecorder.
type EventRecorder interface {
	Event(obj controller.Object, eventtype, reason, message string)
	Eventf(obj controller.Object, eventtype, reason, messageFmt string, args ...any)
}

type recorder struct {
	b         *EventBroadcaster
	component string
}

func (r recorder) Event(obj controller.Object, eventtype, reason, message string) {
	r.b.record(r.component, obj, eventtype, reason, message)
}

func (r recorder) Eventf(obj controller.Object, eventtype, reason, messageFmt string, args ...any) {
	r.b.record(r.component, obj, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}
