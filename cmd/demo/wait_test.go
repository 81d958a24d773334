package main

import (
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/internal/demoengine"
)

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

			require.ErrorIs(t, err, demoengine.ErrNoAnswer)
			assert.Contains(t, err.Error(), "demo: "+url+" accepted the connection but did not answer within 500ms")
			assert.Contains(t, out.String(), "waiting for "+url+" to answer (")
		})
	}
}
