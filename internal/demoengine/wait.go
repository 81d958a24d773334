package demoengine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// defaultAnswerWithin bounds the wait for a remote server's first answer:
// a server that accepts connections and never answers (a stuck process, a
// port forward to nothing) must not keep the demo silent forever.
const defaultAnswerWithin = 30 * time.Second

// defaultProgressEvery is how often the demo says it is still waiting.
const defaultProgressEvery = 5 * time.Second

// ErrNoAnswer is returned by waitForAnswer when the server never answered.
var ErrNoAnswer = errors.New("no answer")

// waitForAnswer runs first, the first request to server, with a deadline
// of within, and says every progressEvery that it is still waiting. It
// returns first's error, or one saying the server did not answer in time
// (wrapping ErrNoAnswer) if the deadline ended the wait.
func waitForAnswer(ctx context.Context, n *narrator, server string, within, progressEvery time.Duration, first func(context.Context) error) error {
	start := time.Now()
	wctx, cancel := context.WithTimeoutCause(ctx, within, ErrNoAnswer)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- first(wctx) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil && errors.Is(context.Cause(wctx), ErrNoAnswer) {
				return fmt.Errorf("demo: %s accepted the connection but did not answer within %s: is it an API server, and is it stuck? (%w)", server, within, ErrNoAnswer)
			}
			return err
		case <-tick.C:
			n.say("waiting for %s to answer (%s)", server, time.Since(start).Round(time.Second))
		}
	}
}
