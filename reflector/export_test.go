package reflector

// Test-only access to internals, for the tests in package reflector_test.

// CheckInvariants reports the first broken invariant of the Reflector.
func (r *Reflector) CheckInvariants() error { return r.checkInvariants() }

// SetRand replaces the source of randomness used for watch timeouts and
// backoff jitter. Call it before Run.
func SetRand(r *Reflector, f func() float64) { r.rand = f }

// Observe registers f to be told about every state transition, by state name.
// Call it before Run.
func Observe(r *Reflector, f func(from, to, cause string)) {
	r.observe = func(from, to state, cause string) { f(from.String(), to.String(), cause) }
}

// Transition is one edge of the state machine.
type Transition struct{ From, To, Event string }

// Transitions returns the state machine's table.
func Transitions() []Transition {
	out := make([]Transition, 0, len(transitions))
	for _, t := range transitions {
		out = append(out, Transition{t.from.String(), t.to.String(), t.event})
	}
	return out
}

// Widening is what a change of selection from (shard from, labels
// fromLabel) to (to, toLabel) adds, when a gained-only list can serve it:
// the gained part's shard and label selectors, or "nothing" when the two
// select the same objects.
func Widening(from, fromLabel, to, toLabel string) (shardSel, labelSel string, ok bool) {
	pick := func(expr, label string) shard {
		s := shard{expr: expr, label: label}
		s.sel, s.err = parseShard(expr)
		s.labelSel, s.labelErr = parseLabel(label)
		return s
	}
	g, ok := widening(pick(from, fromLabel), pick(to, toLabel))
	if g.none {
		return "nothing", "nothing", ok
	}
	return g.shard, g.label, ok
}
