package pipelineweb

import (
	"context"
	"sync"
	"time"
)

// Valve sits where the API server's answers reach the Reflectors: every
// LIST, every WATCH and every watch event passes it. Open, it lets
// everything through at once. Paused, it holds everything — the pipeline
// downstream runs on and drains — until Step lets one thing through or
// Resume opens it again. With a spacing (the page's speed below 1) it lets
// at most one thing through per spacing, as a slow link would.
//
// Nothing the Valve holds is lost: a watch's events wait in order behind
// it. A Valve is safe for concurrent use; its zero value is open.
type Valve struct {
	mu      sync.Mutex // guards all below
	paused  bool
	steps   int           // passes granted by Step while paused
	spacing time.Duration // minimum time between two passes
	next    time.Time     // earliest time of the next pass, with a spacing
	waiting int           // callers held
	changed chan struct{} // closed and replaced whenever the above change
}

// Pass returns when the caller may go through, or ctx's error when ctx ends
// first.
func (v *Valve) Pass(ctx context.Context) error {
	for {
		v.mu.Lock()
		if !v.paused || v.steps > 0 {
			if v.paused {
				v.steps--
			}
			var wait time.Duration
			if v.spacing > 0 {
				now := time.Now()
				at := now
				if v.next.After(now) {
					at = v.next
				}
				v.next = at.Add(v.spacing)
				wait = at.Sub(now)
			}
			v.mu.Unlock()
			if wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return ctx.Err()
				}
			}
			return nil
		}
		changed := v.changedLocked()
		v.waiting++
		v.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
		}
		v.mu.Lock()
		v.waiting--
		v.notifyLocked()
		v.mu.Unlock()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// Pause holds everything from now on.
func (v *Valve) Pause() { v.set(func() { v.paused = true; v.steps = 0 }) }

// Resume lets everything through again.
func (v *Valve) Resume() { v.set(func() { v.paused = false; v.steps = 0 }) }

// Step lets one held thing (or the next to arrive) through, when paused.
// It reports whether the valve is paused.
func (v *Valve) Step() bool {
	paused := false
	v.set(func() {
		if v.paused {
			v.steps++
			paused = true
		}
	})
	return paused
}

// SetSpacing sets the minimum time between two passes (0: none).
func (v *Valve) SetSpacing(d time.Duration) {
	v.set(func() { v.spacing = max(d, 0); v.next = time.Time{} })
}

// ValveState is what the page shows of a Valve.
type ValveState struct {
	Paused    bool    `json:"paused"`
	Held      int     `json:"held"`
	SpacingMS float64 `json:"spacingMs"`
}

// State returns the valve's settings and how many callers it holds.
func (v *Valve) State() ValveState {
	v.mu.Lock()
	defer v.mu.Unlock()
	return ValveState{Paused: v.paused, Held: v.waiting, SpacingMS: float64(v.spacing) / float64(time.Millisecond)}
}

func (v *Valve) set(f func()) {
	v.mu.Lock()
	defer v.mu.Unlock()
	f()
	v.notifyLocked()
}

func (v *Valve) changedLocked() chan struct{} {
	if v.changed == nil {
		v.changed = make(chan struct{})
	}
	return v.changed
}

func (v *Valve) notifyLocked() {
	if v.changed != nil {
		close(v.changed)
		v.changed = nil
	}
}
