package workqueue_test

import (
	"regexp"
	"runtime"
	"testing"
	"testing/synctest"
)

var bubbleOf = regexp.MustCompile(`(?m)^goroutine \d+ \[[^\n]*, synctest bubble (\d+)[\] ]`)

// bubbleGoroutines counts the goroutines of the calling goroutine's synctest
// bubble, the caller included, once every other one is durably blocked (a
// goroutine that is starting or exiting is counted either way, never half).
// runtime.NumGoroutine counts the whole process, where a goroutine another
// test left behind may end at any moment and shift the count; a bubble holds
// only what this test started.
func bubbleGoroutines(t *testing.T) int {
	t.Helper()
	synctest.Wait() // let goroutines that are starting or ending settle
	own := bubbleOf.FindSubmatch(stacks(false))
	if own == nil {
		t.Fatal("bubbleGoroutines called outside a synctest bubble")
	}
	n := 0
	for _, m := range bubbleOf.FindAllSubmatch(stacks(true), -1) {
		if string(m[1]) == string(own[1]) {
			n++
		}
	}
	return n
}

// stacks returns the stack traces of the calling goroutine, or of all of them.
func stacks(all bool) []byte {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, all)
		if n < len(buf) {
			return buf[:n]
		}
		buf = make([]byte, 2*len(buf))
	}
}
