package reflector

import (
	"time"
)

// Backoff configures the delay the Reflector waits before retrying: before
// every relist, and before re-opening a watch the server turned away (429, or
// the connection refused). The two share one Backoff, so a sick server sees
// roughly one request per delay from each Reflector whatever is failing.
//
// The n-th consecutive delay is Initial*Factor^(n-1), at most Cap, plus a
// random extra of up to Jitter times that amount; so with the defaults a delay
// lies in [800ms, 1.6s], then [1.6s, 3.2s], ..., and from the seventh on in
// [30s, 60s]. When no delay has been needed for longer than ResetAfter the
// next one starts again from Initial: a Reflector that has been healthy for
// two minutes retries quickly the next time.
//
// The zero Backoff stands for DefaultBackoff(). Any other value is used as
// given, with Factor below 1 treated as 1, negative Jitter as 0, Cap below
// Initial as Initial, and a zero or negative ResetAfter meaning "never reset".
//
// client-go: k8s.io/apimachinery/pkg/util/wait.Backoff with DelayWithReset, as
// configured in tools/cache.NewReflectorWithOptions.
type Backoff struct {
	Initial    time.Duration // first delay; default 800ms
	Factor     float64       // growth per step; default 2
	Jitter     float64       // extra random fraction; default 1.0
	Cap        time.Duration // largest delay before jitter; default 30s
	ResetAfter time.Duration // healthy time that resets the delay; default 2m
}

// DefaultBackoff returns client-go's reflector backoff: 800ms doubling to 30s,
// fully jittered, reset after 2 minutes without a retry. The jitter spreads
// the retries of many reflectors that failed together (an API server
// restart) instead of letting them relist in lock step.
func DefaultBackoff() Backoff {
	return Backoff{
		Initial:    800 * time.Millisecond,
		Factor:     2,
		Jitter:     1.0,
		Cap:        30 * time.Second,
		ResetAfter: 2 * time.Minute,
	}
}

func (b Backoff) withDefaults() Backoff {
	if b == (Backoff{}) || b.Initial <= 0 {
		return DefaultBackoff()
	}
	if b.Factor < 1 {
		b.Factor = 1
	}
	if b.Jitter < 0 {
		b.Jitter = 0
	}
	if b.Cap < b.Initial {
		b.Cap = b.Initial
	}
	return b
}

// backoffTimer hands out the delays of one Backoff. It is not safe for
// concurrent use: the Reflector guards it with its mutex.
//
// Invariant: cfg.Initial <= step <= cfg.Cap.
type backoffTimer struct {
	cfg  Backoff
	rand func() float64 // in [0, 1)

	step time.Duration // the next delay before jitter
	last time.Time     // when the previous delay was handed out; zero if none
}

func newBackoffTimer(cfg Backoff, rand func() float64) *backoffTimer {
	return &backoffTimer{cfg: cfg, rand: rand, step: cfg.Initial}
}

// next returns the delay to wait now, and advances the sequence.
func (b *backoffTimer) next(now time.Time) time.Duration {
	if b.cfg.ResetAfter > 0 && !b.last.IsZero() && now.Sub(b.last) > b.cfg.ResetAfter {
		b.step = b.cfg.Initial
	}
	b.last = now

	d := b.step
	grown := time.Duration(float64(b.step) * b.cfg.Factor)
	if grown > b.cfg.Cap || grown < b.step { // the second test catches overflow
		grown = b.cfg.Cap
	}
	b.step = grown

	if b.cfg.Jitter > 0 {
		d += time.Duration(b.rand() * b.cfg.Jitter * float64(d))
	}
	return d
}
