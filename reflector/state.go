package reflector

import (
	"fmt"
	"log/slog"
)

// state is where a Reflector is in its list-watch cycle. doc.go draws the
// machine; transitions lists every edge it may take.
type state int

const (
	stateNew            state = iota // built, not yet started
	stateListing                     // list.go: List (paginated), then Store.Replace
	stateWatchListing                // watchlist.go: streaming list, then Store.Replace
	stateWatching                    // watch.go: a watch is open, events flow into the Store
	stateRewatchBackoff              // backoff.go: waiting to re-open a watch, no relist
	stateRelistBackoff               // ListAndWatch has returned; Run waits, then relists
	stateStopped                     // the context was cancelled
	numStates                        // not a state
)

func (s state) String() string {
	switch s {
	case stateNew:
		return "new"
	case stateListing:
		return "listing"
	case stateWatchListing:
		return "watch-listing"
	case stateWatching:
		return "watching"
	case stateRewatchBackoff:
		return "backing off to re-watch"
	case stateRelistBackoff:
		return "backing off to relist"
	case stateStopped:
		return "stopped"
	}
	return fmt.Sprintf("state(%d)", int(s))
}

// transitions is every edge of the state machine, with the event that takes
// it. doc.go and docs/reflector.md show the same table; a test checks that
// doc.go names every edge, and checkInvariants that the Reflector never takes
// an edge that is not here.
var transitions = []struct {
	from, to state
	event    string
}{
	{stateNew, stateListing, "ListAndWatch starts"},
	{stateNew, stateWatchListing, "ListAndWatch starts with UseWatchList"},
	{stateNew, stateStopped, "context cancelled before the first list"},

	{stateListing, stateWatching, "list succeeded and the Store was replaced, or a widened shard selector's gained objects were added"},
	{stateListing, stateListing, "list at a resourceVersion failed with 410 Expired or too large: retry at once, at \"\""},
	{stateListing, stateRelistBackoff, "list failed, or Store.Replace failed"},
	{stateListing, stateStopped, "context cancelled"},

	{stateWatchListing, stateWatching, "end-of-initial-events bookmark arrived and the Store was replaced; the same stream goes on"},
	{stateWatchListing, stateWatchListing, "410 Expired or too large: retry at once, at \"\""},
	{stateWatchListing, stateRewatchBackoff, "429 or connection refused"},
	{stateWatchListing, stateListing, "any other failure: fall back to a plain list"},
	{stateWatchListing, stateStopped, "context cancelled"},

	{stateWatching, stateWatching, "watch ended cleanly (server timeout), idle timeout, or 500 within MaxInternalErrorRetryDuration: re-watch from the last resourceVersion"},
	{stateWatching, stateRewatchBackoff, "watch refused with 429 or connection refused, or ended with 429"},
	{stateWatching, stateRelistBackoff, "watch ended with 410 Expired, any other error (a 500 past MaxInternalErrorRetryDuration included), a very short watch, or a resync error; or could not be opened; or the shard or label selector changed (relist with no delay)"},
	{stateWatching, stateStopped, "context cancelled"},

	{stateRewatchBackoff, stateWatching, "delay elapsed"},
	{stateRewatchBackoff, stateWatchListing, "delay elapsed (streaming list)"},
	{stateRewatchBackoff, stateStopped, "context cancelled"},

	{stateRelistBackoff, stateListing, "delay elapsed: relist"},
	{stateRelistBackoff, stateWatchListing, "delay elapsed: relist (streaming list)"},
	{stateRelistBackoff, stateStopped, "context cancelled"},

	{stateStopped, stateListing, "ListAndWatch called again with a new context"},
	{stateStopped, stateWatchListing, "ListAndWatch called again with a new context (streaming list)"},
	{stateStopped, stateStopped, "ListAndWatch called again with a cancelled context"},
}

// allowed reports whether from -> to is an edge of the machine.
func allowed(from, to state) bool {
	for _, t := range transitions {
		if t.from == from && t.to == to {
			return true
		}
	}
	return false
}

// transition is what a state function decides: the next state, why, and (for
// the edges that leave ListAndWatch) the error ListAndWatch returns.
type transition struct {
	to    state
	cause string
	err   error
	// resume is the state a rewatch backoff leads back to.
	resume state
}

// enter moves the Reflector to state to, logs the edge and tells the test
// observer. It is called only from the goroutine running ListAndWatch or Run.
func (r *Reflector) enter(to state, cause string) {
	r.mu.Lock()
	from := r.state
	r.state = to
	if !allowed(from, to) && r.badTransition == "" {
		r.badTransition = fmt.Sprintf("%v -> %v (%s)", from, to, cause)
	}
	observe := r.observe
	r.mu.Unlock()
	if to == stateWatching && (from == stateWatching || from == stateRewatchBackoff) {
		r.metrics.watchRestart()
	}

	r.logger.Debug("reflector: state", slog.String("from", from.String()),
		slog.String("to", to.String()), slog.String("cause", cause))
	if observe != nil {
		observe(from, to, cause)
	}
}
