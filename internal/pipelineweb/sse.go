package pipelineweb

import (
	"bytes"
	"context"
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
// Stream's messages, each as an SSE event of that name.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Connection", "keep-alive")
	_ = s.Stream(r.Context(), func(event string, data []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	})
}

// Stream sends one page its messages until ctx ends or send fails, and
// returns why it stopped: the page's GET /api/events, without HTTP. Each
// message is a name and its JSON:
//
//	hello    {info, history, state}, once
//	batch    [events...], in Seq order
//	dropped  {count, total}: events lost just before the next batch
//	state    a snapshot, at most every statePeriod, when it changed
//
// The page's subscription has a bounded buffer: a page that reads slowly
// loses its oldest events and is told how many, and the pipeline never
// waits for it.
func (s *Server) Stream(ctx context.Context, send func(event string, data []byte) error) error {
	history, sub := s.hub.Subscribe(s.bufferSize)
	defer sub.Close()
	sendJSON := func(event string, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		return send(event, data)
	}
	st := s.snapshot()
	if err := sendJSON("hello", hello{Info: s.controls.Info(), History: history, State: st}); err != nil {
		return err
	}
	lastState, _ := json.Marshal(st.State)
	lastSent := time.Now()
	tick := time.NewTicker(s.statePeriod)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-sub.Ready():
			events, dropped := sub.Next()
			if dropped > 0 {
				if err := sendJSON("dropped", map[string]any{"count": dropped, "total": sub.Dropped()}); err != nil {
					return err
				}
			}
			if len(events) > 0 {
				if err := sendJSON("batch", events); err != nil {
					return err
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
			if err := sendJSON("state", st); err != nil {
				return err
			}
		}
	}
}
