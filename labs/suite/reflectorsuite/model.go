package reflectorsuite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/labs/grade"
	"github.com/informerlab/informerlab/labs/suite/internal/world"
)

// The Reflector is a state machine driven by what the server does: events,
// a watch the server ends, 410 and 429 refusing a watch or sent on it, a
// list that fails. Its model behaviour plays random sequences of those on
// a fakeapi server, to the learner's Reflector and to informerlab's, each
// in its own world, and compares after every step what the Reflector did
// at once (the calls made at the very instant of the step), what it did
// over the next ten minutes, the store and LastSyncResourceVersion.
//
// Only what the contract fixes is asked: whether a call comes at once or
// after a delay, never how long the delay is (informerlab's is jittered);
// of a run of watches over ten quiet minutes only the first (a server's
// watch timeout ends the others, at times the Reflector chooses); never
// what follows a watch that ended at once with no event (the contract
// says "back off", not whether to list or watch after it).

// reflectorOp is one step of the model: what the server does.
type reflectorOp struct {
	call string
	// lived: the watch stays open five seconds first. quiet: ten minutes
	// pass after the step, so that any backoff it caused is over.
	lived, quiet bool
	do           func(e *env)
}

// reflectorModel is the Reflector's model behaviour, run with t's world.
func reflectorModel(t *testing.T, impl Impl) grade.Model[*env] {
	keys := []string{"a", "b", "c"}
	status := func(code int32, reason metav1.StatusReason) *metav1.Status {
		return &metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: string(reason)}
	}
	ops := []struct {
		weight int
		gen    func(k string) reflectorOp
	}{
		{20, func(k string) reflectorOp {
			return reflectorOp{call: fmt.Sprintf("server: create %s, or change it if it exists (an event on the watch)", k), do: func(e *env) {
				write(e.CMs, k)
			}}
		}},
		{8, func(k string) reflectorOp {
			return reflectorOp{call: fmt.Sprintf("server: delete %s if it exists (an event on the watch)", k), do: func(e *env) {
				_ = e.CMs.Delete(context.Background(), k, metav1.DeleteOptions{})
			}}
		}},
		{8, func(k string) reflectorOp {
			return reflectorOp{call: fmt.Sprintf("server: create or change %s, with no watch event", k), do: func(e *env) {
				write(e.Silent, k)
			}}
		}},
		{16, func(string) reflectorOp {
			return reflectorOp{call: "server: ends the watch cleanly after 5s", lived: true, do: func(e *env) { e.Srv.CloseWatches() }}
		}},
		{8, func(string) reflectorOp {
			return reflectorOp{call: "server: sends ERROR 410 Expired on the watch; 10m pass", quiet: true, do: func(e *env) {
				e.Srv.InjectWatchError(status(http.StatusGone, metav1.StatusReasonExpired))
			}}
		}},
		{8, func(string) reflectorOp {
			return reflectorOp{call: "server: sends ERROR 429 on the watch; 10m pass", quiet: true, do: func(e *env) {
				e.Srv.InjectWatchError(status(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests))
			}}
		}},
		{6, func(string) reflectorOp {
			return reflectorOp{call: "server: ends the watch after 5s and refuses the next with 429; 10m pass", lived: true, quiet: true, do: func(e *env) {
				_ = e.Srv.FailNext("watch", 1, http.StatusTooManyRequests)
				e.Srv.CloseWatches()
			}}
		}},
		{6, func(string) reflectorOp {
			return reflectorOp{call: "server: compacts its history, ends the watch after 5s; 10m pass", lived: true, quiet: true, do: func(e *env) {
				e.Srv.Compact()
				e.Srv.CloseWatches()
			}}
		}},
		{6, func(string) reflectorOp {
			return reflectorOp{call: "server: sends ERROR 410 Expired on the watch and fails the next list with 500; 10m pass", quiet: true, do: func(e *env) {
				_ = e.Srv.FailNext("list", 1, http.StatusInternalServerError)
				e.Srv.InjectWatchError(status(http.StatusGone, metav1.StatusReasonExpired))
			}}
		}},
		{10, func(string) reflectorOp {
			return reflectorOp{call: "10m pass", quiet: true, do: func(*env) {}}
		}},
	}
	total := 0
	for _, o := range ops {
		total += o.weight
	}
	return grade.Model[*env]{
		What:      "Reflector",
		New:       func() *env { return startOn(t, quietWorld(t), impl, nil) },
		Reference: func() *env { return startOn(t, quietWorld(t), Reference, nil) },
		Close:     func(e *env) { e.stop() },
		Seed:      1,
		Runs:      40,
		Steps:     12,
		Gen: func(r *rand.Rand) grade.Op[*env] {
			k := keys[r.IntN(len(keys))]
			n := r.IntN(total)
			for _, o := range ops {
				if n -= o.weight; n < 0 {
					op := o.gen(k)
					return grade.Op[*env]{Call: op.call, Run: op.run}
				}
			}
			panic("reflectorsuite: no op drawn")
		},
	}
}

// quietWorld is a world of ConfigMaps a and b whose server sends no
// bookmarks: a periodic bookmark carries the server's newest
// resourceVersion as the watch that sends it has seen it, so after a write
// with no watch event its value would depend on when the Reflector last
// re-watched, which it chooses (a random watch timeout).
func quietWorld(t *testing.T) *world.World {
	return world.NewWith(t, fakeapi.Options{BookmarkInterval: -1}, "a", "b")
}

// write creates ConfigMap k through c, or changes it if it exists.
func write(c *fakeapi.ResourceClient, k string) {
	if _, err := c.Get(context.Background(), k, metav1.GetOptions{}); err != nil {
		_, _ = c.Create(context.Background(), world.ConfigMap("ns", k), metav1.CreateOptions{})
		return
	}
	_, _ = c.Patch(context.Background(), k, types.MergePatchType, []byte(`{"data":{"n":"`+time.Now().String()+`"}}`), metav1.PatchOptions{})
}

// run performs the step on e and describes how the Reflector reacted.
func (op reflectorOp) run(e *env) string {
	if op.lived {
		world.Advance(5 * time.Second)
	}
	mark := len(e.lw.all())
	began := time.Now()
	op.do(e)
	synctest.Wait()
	if op.quiet {
		world.Advance(10 * time.Minute)
	}
	return e.reaction(mark, began)
}

// reaction describes the calls made since mark (at once: at began; later:
// after it, where a watch right after a watch is left out), the store and
// LastSyncResourceVersion.
func (e *env) reaction(mark int, began time.Time) string {
	e.lw.mu.Lock()
	calls, at := e.lw.calls[mark:], e.lw.at[mark:]
	var now, later []string
	for i, c := range calls {
		switch {
		case at[i].Equal(began):
			now = append(now, c)
		case strings.HasPrefix(c, "watch ") && strings.HasPrefix(e.lw.calls[mark+i-1], "watch "):
			// A watch after a watch, later: the first ended at the
			// Reflector's own timeout (or idle check); not asked.
		default:
			later = append(later, c)
		}
	}
	e.lw.mu.Unlock()
	view := e.store.view()
	names := make([]string, 0, len(view))
	for name := range view {
		names = append(names, name)
	}
	slices.Sort(names)
	var store []string
	for _, name := range names {
		store = append(store, name+"@"+view[name])
	}
	return fmt.Sprintf("at once %v; later %v; store %v; rv %s", now, later, store, e.r.LastSyncResourceVersion())
}

// modelBehaviour is the Reflector's model behaviour.
func modelBehaviour(impl Impl) grade.Behaviour {
	return grade.Behaviour{
		Name: "MatchesInformerlabOnRandomOutcomes",
		Want: "over random sequences of events, clean watch ends, 410 and 429 (refusing a watch or sent on it) and failed lists, what the Reflector does at once and within ten minutes, its store and LastSyncResourceVersion match informerlab's step by step",
		Doc:  docErrors,
		Test: func(t *testing.T) {
			grade.Bubble(t, func(t *testing.T) { reflectorModel(t, impl).Check(t) })
		},
	}
}
