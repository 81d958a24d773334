package informer_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// slowRecorder is a recorder whose every call takes 20ms (of fake time).
type slowRecorder struct{ *recorder }

func (s slowRecorder) OnAdd(obj any, initial bool) {
	time.Sleep(20 * time.Millisecond)
	s.recorder.OnAdd(obj, initial)
}
func (s slowRecorder) OnUpdate(oldObj, newObj any) {
	time.Sleep(20 * time.Millisecond)
	s.recorder.OnUpdate(oldObj, newObj)
}
func (s slowRecorder) OnDelete(obj any) {
	time.Sleep(20 * time.Millisecond)
	s.recorder.OnDelete(obj)
}

// convergenceInformer is one informer under test with its handlers.
type convergenceInformer struct {
	name     string
	inf      informer.SharedIndexInformer
	handlers map[string]*recorder
	slow     informer.ResourceEventHandlerRegistration
}

// TestConvergenceUnderFaults drives thousands of random creates, updates
// and deletes into fakeapi while injecting every fault an informer must
// survive: dropped watches, compactions that force 410 relists, writes
// whose watch events never arrive, failing lists, watch errors. Three
// informers watch (one per queue kind), each with a fast, a slow and a
// resyncing handler, plus one handler added half way. At quiescence, after a
// final relist, every cache equals the server exactly (keys and
// resourceVersions), and so does every handler's view of the objects, built
// from its own notifications alone; no handler ever got an inconsistent
// notification (an add of a known key, an update from a state it did not
// have, a delete of an unknown key).
//
// Diagram: steps 1-6. client-go: the SharedIndexInformer contract (eventual consistency).
func TestConvergenceUnderFaults(t *testing.T) {
	const attempts = 5000 // about half succeed: the others hit a missing or existing name
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("CONVERGENCE_SEED"), 10, 64); err == nil {
		seed = s // replay a failed run: its seed is the first line it logged
	}
	t.Logf("seed %d", seed)
	wallStart := time.Now()

	synctest.Test(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
		fakeStart := time.Now()
		srv := newServer(t, fakeapi.Options{HistoryLimit: 300})
		cms := srv.Resource(cmGVR)
		silent := srv.SilentResource(cmGVR)
		ctx := context.Background()

		var informers []*convergenceInformer
		for _, kind := range []informer.QueueKind{informer.QueueDeltaFIFO, informer.QueueRealFIFO, informer.QueueAtomicFIFO} {
			ci := &convergenceInformer{name: kind.String(), handlers: map[string]*recorder{}}
			ci.inf = informer.NewSharedIndexInformer(cms, exampleCM(), 30*time.Second, nil,
				informer.WithQueue(kind), informer.WithLogger(quiet))
			for _, name := range []string{"fast", "slow", "resync"} {
				ci.handlers[name] = newRecorder()
			}
			_, err := ci.inf.AddEventHandlerWithResyncPeriod(ci.handlers["fast"], 0)
			require.NoError(t, err)
			ci.slow, err = ci.inf.AddEventHandlerWithResyncPeriod(slowRecorder{ci.handlers["slow"]}, 0)
			require.NoError(t, err)
			_, err = ci.inf.AddEventHandler(ci.handlers["resync"])
			require.NoError(t, err)
			run(t, ci.inf)
			informers = append(informers, ci)
		}

		names := make([]string, 150)
		for i := range names {
			names[i] = fmt.Sprintf("cm-%03d", i)
		}
		namespaces := []string{"blue", "green"}
		counts := map[string]int{}
		maxBacklog := 0
		count := func(what string, err error) {
			switch {
			case err == nil:
				counts[what]++
			case apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err), apierrors.IsConflict(err):
				counts[what+" (refused)"]++
			default:
				t.Fatalf("%s: %v", what, err)
			}
		}

		for i := range attempts {
			ns, name := namespaces[rng.IntN(2)], names[rng.IntN(len(names))]
			client := cms
			via := ""
			if rng.IntN(20) == 0 {
				client, via = silent, "silent "
			}
			switch p := rng.IntN(100); {
			case p < 30:
				_, err := client.Namespace(ns).Create(ctx, newCM(ns, name, "0"), metav1.CreateOptions{})
				count(via+"create", err)
			case p < 75:
				obj, err := client.Namespace(ns).Get(ctx, name, metav1.GetOptions{})
				if err == nil {
					setValue(obj, fmt.Sprint(i))
					_, err = client.Namespace(ns).Update(ctx, obj, metav1.UpdateOptions{})
				}
				count(via+"update", err)
			case p < 95:
				count(via+"delete", client.Namespace(ns).Delete(ctx, name, metav1.DeleteOptions{}))
			default:
				switch rng.IntN(5) {
				case 0:
					srv.CloseWatches()
				case 1:
					srv.Compact()
				case 2:
					srv.InjectWatchError(expired)
				case 3:
					srv.InjectWatchError(&metav1.Status{Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError})
				case 4:
					require.NoError(t, srv.FailNext("list", 1+rng.IntN(3), http.StatusServiceUnavailable))
				}
			}
			if i%25 == 0 {
				time.Sleep(time.Duration(rng.IntN(3000)) * time.Millisecond)
			}
			if i == attempts/2 {
				for _, ci := range informers {
					ci.handlers["late"] = newRecorder()
					_, err := ci.inf.AddEventHandler(ci.handlers["late"])
					require.NoError(t, err)
				}
			}
			for _, ci := range informers {
				maxBacklog = max(maxBacklog, ci.slow.Backlog())
				if i%500 == 0 {
					require.NoError(t, informer.CheckInvariants(ci.inf), ci.name)
				}
			}
		}

		// Quiescence: cancel pending list failures, force one last relist
		// (which reveals the silent writes), and let everything drain. Every
		// informer must relist, whatever faults it happened to see: a silent
		// write that no watch reports, then a compaction, put the server's
		// history past anything a watch could resume from, so each re-watch
		// after CloseWatches gets 410 Expired. (A compaction alone is not
		// enough: a watch may resume from exactly the compacted
		// resourceVersion, and an informer whose last relist came before the
		// last silent write would never see it.)
		require.NoError(t, srv.FailNext("list", 0, http.StatusServiceUnavailable))
		create(t, cms, "final", "marker", "1")
		time.Sleep(5 * time.Second)
		_, err := silent.Namespace("final").Create(ctx, newCM("final", "revealed-by-relist", "1"), metav1.CreateOptions{})
		require.NoError(t, err)
		srv.Compact()
		srv.CloseWatches()
		time.Sleep(10 * time.Minute)
		synctest.Wait()

		want := serverView(t, cms)
		for _, ci := range informers {
			assert.Equal(t, want, cacheView(ci.inf), "%s cache", ci.name)
			assert.NoError(t, informer.CheckInvariants(ci.inf), ci.name)
			for hname, rec := range ci.handlers {
				view, problems := rec.snapshot()
				assert.Equal(t, want, view, "%s handler %s", ci.name, hname)
				assert.Empty(t, problems, "%s handler %s", ci.name, hname)
			}
		}
		t.Logf("mutations: %v", counts)
		t.Logf("faults: %+v", srv.Faults())
		t.Logf("%d objects at the end; slow handler's largest backlog %d; fake time %v",
			len(want), maxBacklog, time.Since(fakeStart).Round(time.Second))
	})
	t.Logf("wall time %v", time.Since(wallStart).Round(time.Millisecond))
}
