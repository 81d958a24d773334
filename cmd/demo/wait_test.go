package main

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWaitForAnswerSaysItWaitsThenGivesUp: a first request that never
// answers is given up on after 30 seconds, with a line every 5 seconds
// saying how long the demo has waited, and an error naming the server.
// Diagram: step 1. client-go: none (client-go waits silently).
func TestWaitForAnswerSaysItWaitsThenGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		n := &narrator{out: &out}
		start := time.Now()

		err := waitForAnswer(t.Context(), n, "http://127.0.0.1:6443", defaultAnswerWithin, defaultProgressEvery, func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})

		require.ErrorIs(t, err, errNoAnswer)
		assert.Equal(t, "demo: http://127.0.0.1:6443 accepted the connection but did not answer within 30s: is it an API server, and is it stuck? (no answer)", err.Error())
		assert.Equal(t, 30*time.Second, time.Since(start))
		for _, s := range []string{"5s", "10s", "15s", "20s", "25s"} {
			assert.Contains(t, out.String(), "waiting for http://127.0.0.1:6443 to answer ("+s+")\n")
		}
	})
}

// TestWaitForAnswerReturnsTheAnswer: an answer after 12 seconds ends the
// wait then, after two progress lines, with the request's own result.
// Diagram: step 1. client-go: none.
func TestWaitForAnswerReturnsTheAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out syncBuffer
		n := &narrator{out: &out}
		refused := errors.New("403 Forbidden")
		start := time.Now()

		err := waitForAnswer(t.Context(), n, "http://x", defaultAnswerWithin, defaultProgressEvery, func(ctx context.Context) error {
			time.Sleep(12 * time.Second) // the server's answer, in the bubble's time
			return refused
		})

		assert.Same(t, refused, err)
		assert.Equal(t, 12*time.Second, time.Since(start))
		assert.Equal(t, "waiting for http://x to answer (5s)\nwaiting for http://x to answer (10s)\n", out.String())
	})
}

// silentServer accepts connections and never answers on them, until the
// test ends.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String()
}

// TestServerThatNeverAnswersIsGivenUpOn points demo --server, and demo
// --web --server, at a server that accepts and never answers: each says it
// is waiting, then fails with a clear error instead of waiting forever.
// The bounds are shortened for the test.
// Diagram: step 1. client-go: none (client-go waits silently).
func TestServerThatNeverAnswersIsGivenUpOn(t *testing.T) {
	for _, args := range [][]string{{"--no-color"}, {"--web", "--web-addr", "127.0.0.1:0", "--no-color"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			url := silentServer(t)
			out := &syncBuffer{}
			e := env{getenv: func(string) string { return "" }, answerWithin: 500 * time.Millisecond, progressEvery: 100 * time.Millisecond}
			done := make(chan error, 1)

			go func() {
				done <- runWith(t.Context(), append(args, "--server", url), strings.NewReader(""), out, out, e)
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				require.FailNow(t, "the demo still waits", "%s", out)
			}

			require.ErrorIs(t, err, errNoAnswer)
			assert.Contains(t, err.Error(), "demo: "+url+" accepted the connection but did not answer within 500ms")
			assert.Contains(t, out.String(), "waiting for "+url+" to answer (")
		})
	}
}
