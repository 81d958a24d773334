package ratelimitersuite

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/informerlab/informerlab/labs/grade"
)

// built is a limiter under test, or the error its constructor returned.
type built struct {
	l   Limiter
	err error
}

// config is one limiter's parameters: how to build it with impl and with
// informerlab's, and how the constructor call reads.
type config struct {
	call string
	make func(impl Impl) built
}

// limiterModel checks one limiter against informerlab's over random
// sequences of When, Forget and NumRequeues on three items, with time
// passing between them (the bucket earns tokens). Delays are compared to
// the microsecond, so float rounding of a fractional rate does not count.
// Run it inside a synctest bubble.
func limiterModel(impl Impl, c config, seed uint64) grade.Model[built] {
	items := []string{"a", "b", "c"}
	sleeps := []time.Duration{50 * time.Millisecond, 250 * time.Millisecond, time.Second, 3 * time.Second}
	state := func(b built, fn func() string) string {
		if b.err != nil || b.l == nil {
			return fmt.Sprintf("the constructor returned (%v, %v)", b.l != nil, b.err != nil)
		}
		return fn()
	}
	return grade.Model[built]{
		What:      "limiter " + c.call,
		New:       func() built { return c.make(impl) },
		Reference: func() built { return c.make(Reference) },
		Seed:      seed,
		Runs:      40,
		Steps:     24,
		Gen: func(r *rand.Rand) grade.Op[built] {
			item := items[r.IntN(len(items))]
			switch n := r.IntN(100); {
			case n < 50:
				return grade.Op[built]{Call: fmt.Sprintf("l.When(%q)", item), Run: func(b built) string {
					return state(b, func() string {
						return fmt.Sprintf("%v, NumRequeues=%d", b.l.When(item).Round(time.Microsecond), b.l.NumRequeues(item))
					})
				}}
			case n < 63:
				// Many failures at once reach the cap, and the overflow
				// past it, in a short sequence.
				return grade.Op[built]{Call: fmt.Sprintf("10 × l.When(%q)", item), Run: func(b built) string {
					return state(b, func() string {
						var last time.Duration
						for range 10 {
							last = b.l.When(item)
						}
						return fmt.Sprintf("last %v, NumRequeues=%d", last.Round(time.Microsecond), b.l.NumRequeues(item))
					})
				}}
			case n < 70:
				return grade.Op[built]{Call: fmt.Sprintf("l.Forget(%q)", item), Run: func(b built) string {
					return state(b, func() string {
						b.l.Forget(item)
						return fmt.Sprintf("NumRequeues=%d", b.l.NumRequeues(item))
					})
				}}
			case n < 80:
				return grade.Op[built]{Call: fmt.Sprintf("l.NumRequeues(%q)", item), Run: func(b built) string {
					return state(b, func() string { return fmt.Sprint(b.l.NumRequeues(item)) })
				}}
			}
			d := sleeps[r.IntN(len(sleeps))]
			return grade.Op[built]{Call: fmt.Sprintf("time.Sleep(%v)", d), Run: func(b built) string {
				time.Sleep(d)
				return ""
			}}
		},
	}
}

// The parameters each limiter's model runs with: the everyday ones and
// the edges (a base above the cap, a zero base or cap, a cap that doubling
// would overflow, no fast attempts, fast slower than slow, a fractional
// rate, a burst of one, and the parameters NewBucket must refuse).
func exponentialConfigs() []config {
	var cs []config
	for _, p := range [][2]time.Duration{
		{5 * time.Millisecond, time.Second}, {time.Second, 5 * time.Millisecond}, {0, time.Second},
		{time.Millisecond, 0}, {time.Nanosecond, math.MaxInt64}, {time.Hour, math.MaxInt64},
		{3 * time.Millisecond, 3 * time.Millisecond},
	} {
		cs = append(cs, config{call: fmt.Sprintf("NewExponential(%v, %v)", p[0], p[1]), make: func(impl Impl) built {
			return built{l: impl.Exponential(p[0], p[1])}
		}})
	}
	return cs
}

func fastSlowConfigs() []config {
	type params struct {
		fast, slow time.Duration
		n          int
	}
	var cs []config
	for _, p := range []params{{time.Millisecond, time.Second, 3}, {time.Millisecond, time.Second, 0},
		{time.Millisecond, time.Second, 1}, {2 * time.Second, time.Second, 2}, {0, 0, 2}} {
		cs = append(cs, config{call: fmt.Sprintf("NewFastSlow(%v, %v, %d)", p.fast, p.slow, p.n), make: func(impl Impl) built {
			return built{l: impl.FastSlow(p.fast, p.slow, p.n)}
		}})
	}
	return cs
}

func bucketConfigs() []config {
	type params struct {
		qps   float64
		burst int
	}
	var cs []config
	for _, p := range []params{{10, 1}, {0.5, 2}, {2.5, 3}, {4, 10}, {100, 1},
		{0, 1}, {-1, 1}, {math.NaN(), 1}, {math.Inf(1), 1}, {1, 0}, {1, -3}} {
		cs = append(cs, config{call: fmt.Sprintf("NewBucket(%v, %d)", p.qps, p.burst), make: func(impl Impl) built {
			l, err := impl.Bucket(p.qps, p.burst)
			return built{l: l, err: err}
		}})
	}
	return cs
}

func maxOfConfigs() []config {
	exp := func() Limiter { return Reference.Exponential(time.Millisecond, 100*time.Millisecond) }
	fs := func() Limiter { return Reference.FastSlow(20*time.Millisecond, 50*time.Millisecond, 2) }
	bucket := func() Limiter { l, _ := Reference.Bucket(2, 2); return l }
	return []config{
		{call: "NewMaxOf(exponential(1ms, 100ms), fastSlow(20ms, 50ms, 2))", make: func(impl Impl) built {
			return built{l: impl.MaxOf(exp(), fs())}
		}},
		{call: "NewMaxOf(fastSlow(20ms, 50ms, 2), bucket(2, 2), exponential(1ms, 100ms))", make: func(impl Impl) built {
			return built{l: impl.MaxOf(fs(), bucket(), exp())}
		}},
		{call: "NewMaxOf(exponential(1ms, 100ms))", make: func(impl Impl) built {
			return built{l: impl.MaxOf(exp())}
		}},
	}
}

// modelBehaviours are the limiters' model behaviours, one per limiter.
func modelBehaviours(impl Impl) []grade.Behaviour {
	one := func(name, what string, configs func() []config) grade.Behaviour {
		return grade.Behaviour{
			Name: name + "MatchesInformerlabOnRandomSequences",
			Want: "over random sequences of When, Forget, NumRequeues and time passing on a few items, with everyday and edge parameters, " +
				what + " answers as informerlab's does, step by step",
			Doc: docLimiters,
			Test: func(t *testing.T) {
				grade.Bubble(t, func(t *testing.T) {
					for i, c := range configs() {
						limiterModel(impl, c, uint64(100*i+1)).Check(t)
						if t.Failed() {
							return
						}
					}
				})
			},
		}
	}
	return []grade.Behaviour{
		one("Exponential", "the exponential limiter (a base above the cap, a zero base, a cap doubling would overflow)", exponentialConfigs),
		one("FastSlow", "the fast-slow limiter (no fast attempts, fast slower than slow)", fastSlowConfigs),
		one("Bucket", "the bucket (a fractional rate, a burst of one, and the parameters it must refuse)", bucketConfigs),
		one("MaxOf", "MaxOf (over informerlab's limiters)", maxOfConfigs),
	}
}
