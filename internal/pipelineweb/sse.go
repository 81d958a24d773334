package pipelineweb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// writeTimeout bounds one write to a page: a page that stops reading is cut
// off after it, and its subscription closed.
const writeTimeout = 10 * time.Second

// hello is the first message of an event stream: what the page may offer,
// the recent events and the state they lead to.
type hello struct {
	Info    Info     `json:"info"`
	History []Event  `json:"history"`
	State   snapshot `json:"state"`
}

// events streams Server-Sent Events to one page until it goes away:
//
//	event: hello    {info, history, state}, once
//	event: batch    [events...], in Seq order
//	event: dropped  {count, total}: events lost just before the next batch
//	event: state    a snapshot, at most every statePeriod, when it changed
//
// The page's subscription has a bounded buffer: a page that reads slowly
// loses its oldest events and is told how many, and the pipeline never
// waits for it.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	history, sub := s.hub.Subscribe(s.bufferSize)
	defer sub.Close()

	send := func(event string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	st := s.snapshot()
	if err := send("hello", hello{Info: s.controls.Info(), History: history, State: st}); err != nil {
		return
	}
	lastState, _ := json.Marshal(st.State)
	lastSent := time.Now()
	tick := time.NewTicker(s.statePeriod)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-sub.Ready():
			events, dropped := sub.Next()
			if dropped > 0 {
				if err := send("dropped", map[string]any{"count": dropped, "total": sub.Dropped()}); err != nil {
					return
				}
			}
			if len(events) > 0 {
				if err := send("batch", events); err != nil {
					return
				}
			}
		case <-tick.C:
			st := s.snapshot()
			cur, _ := json.Marshal(st.State)
			// Send when the boxes changed, and every second anyway for the
			// valve, the status and the clock of the retry countdowns.
			if bytes.Equal(cur, lastState) && time.Since(lastSent) < time.Second {
				continue
			}
			lastState, lastSent = cur, time.Now()
			if err := send("state", st); err != nil {
				return
			}
		}
	}
}
