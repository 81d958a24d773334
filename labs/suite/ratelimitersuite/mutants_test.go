package ratelimitersuite_test

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/ratelimitersuite"
	"github.com/informerlab/informerlab/workqueue"
)

// catalogue is the mistakes a learner plausibly makes writing lab 3, each
// with the behaviours that must report it. The wrong code is in the
// learner* types below, behind `mistake == "<name>"`: the limiters a
// learner writes from the README's hints, right but for that one mistake.
var catalogue = []grade.Mistake{
	{Name: "exp-no-cap", What: "the exponential limiter doubles forever and never looks at maxDelay",
		Catches: []string{"ExponentialCapsWithoutOverflow"}},
	{Name: "exp-shift-overflow", What: "the exponential limiter caps base<<n at maxDelay after shifting, so past 63 failures it wraps around",
		Catches: []string{"ExponentialCapsWithoutOverflow"}},
	{Name: "exp-float-pow", What: "the exponential limiter computes base·2^n with math.Pow and converts the float to a Duration before capping it",
		Catches: []string{"ExponentialCapsWithoutOverflow"}},
	{Name: "exp-off-by-one", What: "the exponential limiter counts the failure first, so the first delay is 2·base",
		Catches: []string{"ExponentialDoublesPerFailure", "ExponentialIsPerItem", "ForgetRestartsTheBackoff"}},
	{Name: "exp-one-count", What: "the exponential limiter keeps one failure count for every item",
		Catches: []string{"ExponentialIsPerItem"}},
	{Name: "forget-keeps-count", What: "Forget resets the delay but not the count NumRequeues reports",
		Catches: []string{"ForgetRestartsTheBackoff"}},
	{Name: "fastslow-off-by-one", What: "fast-slow goes slow on the maxFast-th attempt instead of after it",
		Catches: []string{"FastSlowSwitchesAfterFastAttempts"}},
	{Name: "maxof-takes-min", What: "MaxOf returns the shortest delay of its limiters",
		Catches: []string{"MaxOfTakesTheLongestDelay"}},
	{Name: "maxof-asks-until-nonzero", What: "MaxOf stops asking its limiters at the first non-zero delay, so the others miss the attempt",
		Catches: []string{"MaxOfTakesTheLongestDelay"}},
	{Name: "bucket-no-refill", What: "the bucket spends its tokens and never earns any back",
		Catches: []string{"BucketRefillsOverTime"}},
	{Name: "bucket-refill-past-burst", What: "the bucket earns tokens while idle without stopping at burst",
		Catches: []string{"BucketRefillsOverTime"}},
	{Name: "bucket-no-validation", What: "NewBucket accepts qps <= 0 and burst < 1",
		Catches: []string{"BucketRejectsBadParameters"}},
	{Name: "exp-first-delay-uncapped", What: "the exponential limiter returns base for an item's first failure without comparing it with maxDelay",
		Catches: []string{"ExponentialMatchesInformerlabOnRandomSequences"}},
	{Name: "fastslow-zero-fast-is-fast", What: "fast-slow treats maxFast 0 as one fast attempt",
		Catches: []string{"FastSlowMatchesInformerlabOnRandomSequences"}},
	{Name: "bucket-integer-rate", What: "the bucket's interval is time.Second / time.Duration(qps), so a fractional rate is rounded down",
		Catches: []string{"BucketMatchesInformerlabOnRandomSequences"}},
	{Name: "queue-adds-now", What: "AddRateLimited counts the failure but adds the item at once",
		Catches: []string{"AddRateLimitedWaitsTheLimiterDelay"}},
	{Name: "queue-forget-noop", What: "the queue's Forget does not pass through to the limiter",
		Catches: []string{"QueueForgetResetsTheItem"}},
	{Name: "exp-no-lock", What: "the exponential limiter's failure map has no lock", NeedsRace: true,
		Catches: []string{"LimitersAreSafeForConcurrentUse"}},
}

// learnerExp is the exponential limiter of Hints 1 and 2.
type learnerExp struct {
	mistake   string
	base, max time.Duration
	mu        sync.Mutex // guards failures
	failures  map[string]int
	all       int // the one count of exp-one-count
}

func (l *learnerExp) lock() func() {
	if l.mistake == "exp-no-lock" {
		return func() {}
	}
	l.mu.Lock()
	return l.mu.Unlock
}

func (l *learnerExp) When(item string) time.Duration {
	defer l.lock()()
	n := l.failures[item]
	if l.mistake == "exp-one-count" {
		n = l.all
		l.all++
	}
	l.failures[item]++
	if l.mistake == "exp-off-by-one" {
		n++
	}
	switch l.mistake {
	case "exp-no-cap":
		return l.base << n
	case "exp-shift-overflow":
		return min(l.base<<n, l.max)
	case "exp-float-pow":
		return min(time.Duration(float64(l.base)*math.Pow(2, float64(n))), l.max)
	}
	if n == 0 && l.mistake == "exp-first-delay-uncapped" {
		return l.base
	}
	d := l.base
	for range n {
		if d > l.max/2 {
			return l.max
		}
		d *= 2
	}
	return min(d, l.max)
}

func (l *learnerExp) Forget(item string) {
	defer l.lock()()
	if l.mistake == "forget-keeps-count" {
		return
	}
	delete(l.failures, item)
}

func (l *learnerExp) NumRequeues(item string) int {
	defer l.lock()()
	return l.failures[item]
}

// learnerFastSlow is the fast-slow limiter.
type learnerFastSlow struct {
	mistake    string
	fast, slow time.Duration
	maxFast    int
	mu         sync.Mutex // guards attempts
	attempts   map[string]int
}

func (l *learnerFastSlow) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.attempts[item]++
	limit := l.maxFast
	if l.mistake == "fastslow-off-by-one" {
		limit--
	}
	if l.mistake == "fastslow-zero-fast-is-fast" {
		limit = max(limit, 1)
	}
	if l.attempts[item] <= limit {
		return l.fast
	}
	return l.slow
}

func (l *learnerFastSlow) Forget(item string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.attempts, item)
}

func (l *learnerFastSlow) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.attempts[item]
}

// learnerMaxOf combines limiters.
type learnerMaxOf struct {
	mistake  string
	limiters []ratelimitersuite.Limiter
}

func (l *learnerMaxOf) When(item string) time.Duration {
	var d time.Duration
	for i, lim := range l.limiters {
		w := lim.When(item)
		switch {
		case l.mistake == "maxof-takes-min" && (i == 0 || w < d):
			d = w
		case l.mistake != "maxof-takes-min" && w > d:
			d = w
		}
		if l.mistake == "maxof-asks-until-nonzero" && d > 0 {
			return d
		}
	}
	return d
}

func (l *learnerMaxOf) Forget(item string) {
	for _, lim := range l.limiters {
		lim.Forget(item)
	}
}

func (l *learnerMaxOf) NumRequeues(item string) int {
	n := 0
	for _, lim := range l.limiters {
		n = max(n, lim.NumRequeues(item))
	}
	return n
}

// learnerBucket is the token bucket of Hint 3, with a token count
// instead of one time: the way most learners start.
type learnerBucket struct {
	mistake  string
	interval time.Duration
	burst    int
	mu       sync.Mutex // guards tokens and last
	tokens   float64    // below zero: tokens owed to callers told to wait
	last     time.Time  // when tokens was last brought up to date
}

func newLearnerBucket(mistake string, qps float64, burst int) (ratelimitersuite.Limiter, error) {
	if mistake != "bucket-no-validation" && (!(qps > 0) || math.IsInf(qps, 1) || burst < 1) {
		return nil, errors.New("bucket: qps must be positive and finite, burst at least 1")
	}
	if qps <= 0 || math.IsNaN(qps) || math.IsInf(qps, 0) {
		qps = 1
	}
	interval := time.Duration(float64(time.Second) / qps)
	if mistake == "bucket-integer-rate" {
		interval = time.Second / time.Duration(max(1, qps))
	}
	return &learnerBucket{mistake: mistake, interval: interval,
		burst: max(burst, 1), tokens: float64(max(burst, 1)), last: time.Now()}, nil
}

func (l *learnerBucket) When(string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.mistake != "bucket-no-refill" {
		l.tokens += float64(now.Sub(l.last)) / float64(l.interval)
		if l.mistake != "bucket-refill-past-burst" {
			l.tokens = min(l.tokens, float64(l.burst))
		}
	}
	l.last = now
	if l.tokens >= 1 {
		l.tokens--
		return 0
	}
	// No token: the caller waits for one more than those already owed.
	d := time.Duration((1 - l.tokens) * float64(l.interval))
	l.tokens--
	return d
}

func (l *learnerBucket) Forget(string)          {}
func (l *learnerBucket) NumRequeues(string) int { return 0 }

// learnerQueue is the rate-limiting queue of Hint 4 on informerlab's
// delaying queue.
type learnerQueue struct {
	workqueue.DelayingInterface[string]
	mistake string
	limiter ratelimitersuite.Limiter
}

func (q *learnerQueue) AddRateLimited(item string) {
	d := q.limiter.When(item)
	if q.mistake == "queue-adds-now" {
		d = 0
	}
	q.AddAfter(item, d)
}

func (q *learnerQueue) Forget(item string) {
	if q.mistake != "queue-forget-noop" {
		q.limiter.Forget(item)
	}
}

func (q *learnerQueue) NumRequeues(item string) int { return q.limiter.NumRequeues(item) }

func learnerImpl(mistake string) ratelimitersuite.Impl {
	return ratelimitersuite.Impl{
		Exponential: func(base, maxDelay time.Duration) ratelimitersuite.Limiter {
			return &learnerExp{mistake: mistake, base: base, max: maxDelay, failures: map[string]int{}}
		},
		FastSlow: func(fast, slow time.Duration, maxFast int) ratelimitersuite.Limiter {
			return &learnerFastSlow{mistake: mistake, fast: fast, slow: slow, maxFast: maxFast, attempts: map[string]int{}}
		},
		MaxOf: func(limiters ...ratelimitersuite.Limiter) ratelimitersuite.Limiter {
			return &learnerMaxOf{mistake: mistake, limiters: limiters}
		},
		Bucket: func(qps float64, burst int) (ratelimitersuite.Limiter, error) {
			return newLearnerBucket(mistake, qps, burst)
		},
		Queue: func(l ratelimitersuite.Limiter) workqueue.RateLimitingInterface[string] {
			return &learnerQueue{DelayingInterface: workqueue.NewDelaying[string](), mistake: mistake, limiter: l}
		},
	}
}

// TestHelperMutant grades one mutant, in the child process CatchesMistakes
// starts.
func TestHelperMutant(t *testing.T) {
	if name := grade.Mutant(); name != "" {
		grade.Lab(t, "mutant-"+name, ratelimitersuite.Behaviours(learnerImpl(name)))
	}
}

func TestLearnerLimitersWithoutMistakePass(t *testing.T) {
	grade.Reference(t, ratelimitersuite.Behaviours(learnerImpl("")))
}

func TestSuiteCatchesEveryMistake(t *testing.T) {
	grade.CatchesMistakes(t, "TestHelperMutant", catalogue)
}
