package client

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informerlab/informerlab/internal/kubejson"
)

// MaxWatchEventBytes is the largest single watch event the decoder accepts: 16 MiB,
// ten times etcd's default 1.5 MiB object limit. A longer line ends the watch with an
// error event instead of growing the buffer without bound.
const MaxWatchEventBytes = 16 << 20

// decodeError says the stream carried something that is not a valid event. The watch
// turns it into a watch.Error event (reason InternalError) and ends.
type decodeError struct {
	msg string
}

func (e *decodeError) Error() string { return "client: watch stream: " + e.msg }

func badEvent(format string, args ...any) error {
	return &decodeError{msg: fmt.Sprintf(format, args...)}
}

// eventDecoder reads the watch stream of WIRE.md: one JSON object per line,
// {"type":"ADDED|MODIFIED|DELETED|BOOKMARK|ERROR","object":{...}}. It is not safe for
// concurrent use; one goroutine owns it.
//
// Invariants: every event it returns has a non-nil Object; an ERROR event's Object is a
// *metav1.Status; every other event's object has kind, apiVersion (in gv) and
// metadata.resourceVersion, and all of them have the same kind.
type eventDecoder struct {
	r        *bufio.Reader
	maxBytes int
	gv       schema.GroupVersion // the watched resource's group and version
	scheme   *runtime.Scheme     // typed decoding for known kinds; nil = unstructured only
	kind     string              // the expected kind: the resource's (resource_kind.go), else the first object's
	line     []byte              // reused line buffer
}

// newEventDecoder reads events of group-version gv from r. kind, if not empty, is the
// kind every object must have; if empty, the first object's kind is expected from then on.
func newEventDecoder(r io.Reader, gv schema.GroupVersion, kind string, scheme *runtime.Scheme, maxBytes int) *eventDecoder {
	return &eventDecoder{r: bufio.NewReader(r), maxBytes: maxBytes, gv: gv, kind: kind, scheme: scheme}
}

// Decode returns the next event. At the end of the stream it returns io.EOF if the
// stream ended between events, a transport error as it is if the connection broke
// between events, and a *decodeError for anything that is not a whole, valid event:
// malformed JSON, a partial event at the end (truncated), a line over maxBytes
// (oversized), an unknown type, or an object of the wrong kind.
func (d *eventDecoder) Decode() (watch.Event, error) {
	for {
		line, err := d.readLine()
		var tooBig *decodeError
		if errors.As(err, &tooBig) {
			return watch.Event{}, err
		}
		trimmed := bytes.TrimSpace(line)
		if err == nil {
			if len(trimmed) == 0 {
				continue // blank line between events
			}
			return d.parse(trimmed)
		}
		if len(trimmed) == 0 {
			return watch.Event{}, err // io.EOF or a broken connection, between events
		}
		if err == io.EOF && json.Valid(trimmed) {
			return d.parse(trimmed) // a last event without its newline; the next call sees io.EOF
		}
		return watch.Event{}, badEvent("stream ended in the middle of an event (%d bytes received): %v", len(trimmed), err)
	}
}

// readLine returns the next line including its newline, or the bytes read before an
// error. It never holds more than maxBytes plus one buffer.
func (d *eventDecoder) readLine() ([]byte, error) {
	d.line = d.line[:0]
	for {
		chunk, err := d.r.ReadSlice('\n')
		if len(d.line)+len(chunk) > d.maxBytes+1 {
			d.line = nil // release the memory; the stream ends here
			return nil, badEvent("event larger than %d bytes", d.maxBytes)
		}
		d.line = append(d.line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		return d.line, err
	}
}

// wireEvent is one line of the stream.
type wireEvent struct {
	Type   watch.EventType `json:"type"`
	Object json.RawMessage `json:"object"`
}

func (d *eventDecoder) parse(line []byte) (watch.Event, error) {
	var ev wireEvent
	if err := kubejson.Unmarshal(line, &ev); err != nil {
		return watch.Event{}, badEvent("malformed event: %v", err)
	}
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, watch.Error:
	case "":
		return watch.Event{}, badEvent("event has no type")
	default:
		return watch.Event{}, badEvent("unknown event type %q", ev.Type)
	}
	raw := bytes.TrimSpace(ev.Object)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return watch.Event{}, badEvent("%s event has no object", ev.Type)
	}
	if raw[0] != '{' {
		return watch.Event{}, badEvent("%s event object is not a JSON object", ev.Type)
	}
	if ev.Type == watch.Error {
		return d.parseError(raw)
	}

	head, err := readTypeHead(raw)
	if err != nil {
		return watch.Event{}, badEvent("malformed %s event object: %v", ev.Type, err)
	}
	if head.Kind == "" || head.APIVersion == "" {
		return watch.Event{}, badEvent("%s event object has no kind or apiVersion", ev.Type)
	}
	gvk, err := head.gvk()
	if err != nil {
		return watch.Event{}, badEvent("%s event object: %v", ev.Type, err)
	}
	switch {
	case gvk.GroupVersion() != d.gv:
		return watch.Event{}, badEvent("wrong kind: %s event object is %s %s, but this watch is on %s", ev.Type, head.APIVersion, head.Kind, d.gv)
	case head.Kind == "Status":
		return watch.Event{}, badEvent("wrong kind: %s event carries a Status; only ERROR events may", ev.Type)
	case d.kind != "" && head.Kind != d.kind:
		return watch.Event{}, badEvent("wrong kind: %s event object is %s, but this stream carries %s", ev.Type, head.Kind, d.kind)
	}
	obj, err := decodeAs(d.scheme, raw, gvk)
	if err != nil {
		return watch.Event{}, badEvent("%s event object: %v", ev.Type, err)
	}
	// Checked on the decoded object, so the check sees exactly what the caller will.
	if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
		return watch.Event{}, badEvent("%s event object decoded as %v, want %v", ev.Type, got, gvk)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return watch.Event{}, badEvent("%s event object %s has no object metadata: %v", ev.Type, head.Kind, err)
	}
	if m.GetResourceVersion() == "" {
		return watch.Event{}, badEvent("%s event object %s has no metadata.resourceVersion", ev.Type, head.Kind)
	}
	d.kind = head.Kind
	return watch.Event{Type: ev.Type, Object: obj}, nil
}

// parseError decodes an ERROR event's object, which is always a metav1.Status (a 410
// Expired for a too-old resourceVersion, for instance).
func (d *eventDecoder) parseError(raw []byte) (watch.Event, error) {
	st := &metav1.Status{}
	if err := kubejson.Unmarshal(raw, st); err != nil {
		return watch.Event{}, badEvent("malformed ERROR event object: %v", err)
	}
	if st.Kind != "" && st.Kind != "Status" {
		return watch.Event{}, badEvent("wrong kind: ERROR event carries %q, want Status", st.Kind)
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	return watch.Event{Type: watch.Error, Object: st}, nil
}
