package main

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
)

const ns = "default"

// chapter is one episode of the story: a one-line explanation, then an
// action against the API server, then a wait for its expected effects.
type chapter struct {
	name        string
	title       string
	explanation string
	play        func(s *story, ctx context.Context) error
}

// story drives the scripted scenario against the embedded fakeapi.
type story struct {
	srv  *fakeapi.Server
	w    *world
	n    *narrator
	g    *gate
	foos resourceAPI // the user's client
	deps resourceAPI
	// pause waits between chapters (0 in deterministic mode).
	pause time.Duration
	// step, when set, blocks before each chapter until Enter.
	step func(ctx context.Context) error
}

// scenarios name subsets of the chapters; every scenario starts with the
// first two, which build the state the others need.
var scenarioChapters = []struct {
	name, help string
	chapters   []string
}{
	{"story", "the whole story, every chapter (default)", []string{"initial", "create", "scale", "recreate", "watch-drop", "relist", "resync", "retry", "delete"}},
	{"basics", "initial list, create, scale, a deleted Deployment recreated", []string{"initial", "create", "scale", "recreate"}},
	{"watch", "a dropped watch (re-watch, no relist), then expired history (410, relist, tombstone)", []string{"initial", "create", "watch-drop", "relist"}},
	{"resync", "a periodic resync, and why it is not a relist", []string{"initial", "create", "resync"}},
	{"retry", "a failing Reconcile retried with growing delays", []string{"initial", "create", "retry"}},
	{"finalizer", "deleting a Foo: the finalizer's cleanup, then the Foo is gone", []string{"initial", "create", "delete"}},
}

func chapters() map[string]chapter {
	list := []chapter{
		{"initial", "initial list and sync",
			"Each informer LISTs every object once, fills its cache, then WATCHes from the list's resourceVersion; the controller starts only after the caches synced, and reconciles every object of the initial list.",
			(*story).initial},
		{"create", "create a Foo",
			"You create Foo default/web asking for 3 replicas: the controller adds its finalizer, creates the Deployment, and the Foo's status converges as the Deployment becomes available.",
			(*story).create},
		{"scale", "scale it",
			"You change spec.replicas to 5: generation goes up, the controller updates the Deployment, the status follows.",
			(*story).scale},
		{"recreate", "someone deletes the Deployment",
			"The Deployment is deleted behind the controller's back: its informer sees the DELETED event, the owner Foo is enqueued, and Reconcile recreates it (level-triggered: it compares what is with what should be).",
			(*story).recreate},
		{"watch-drop", "the watch connection drops",
			"The server closes every watch (a restart, a load balancer): each Reflector re-watches from the last resourceVersion it saw — no LIST, the cache is kept.",
			(*story).watchDrop},
		{"relist", "history expires while disconnected",
			"Deployment default/alpha is deleted without a watch event (as if missed while disconnected), the server compacts its history and drops the watches: re-watching gets 410 Expired, so each Reflector relists — Replaced deltas for every object, a tombstone for the one that vanished.",
			(*story).relist},
		{"resync", "a periodic resync",
			fmt.Sprintf("Every %s the Deployment informer replays its own cache as Sync deltas: no request reaches the API server (that is what makes it not a relist); handlers get OnUpdate with identical objects and the controller re-checks.", resyncPeriod),
			(*story).resync},
		{"retry", "a reconcile error",
			fmt.Sprintf("The API server will fail the next 3 updates with 500; you scale web to 4. Each failed Reconcile is retried with AddRateLimited after a growing delay (%s, %s, %s), then Forget resets the backoff.", retryBase, 2*retryBase, 4*retryBase),
			(*story).retry},
		{"delete", "delete the Foo",
			"You delete Foo default/web. Its finalizer makes the server only set deletionTimestamp; the controller's cleanup deletes the Deployment, removes the finalizer, and then the Foo is gone.",
			(*story).delete},
	}
	m := map[string]chapter{}
	for _, c := range list {
		m[c.name] = c
	}
	return m
}

// seed writes the state an earlier run of the controller left behind:
// Foo default/alpha and its Deployment, in sync.
func seed(ctx context.Context, srv *fakeapi.Server) error {
	foos := srv.Resource(fooGVR).Namespace(ns)
	deps := srv.Resource(deployGVR).Namespace(ns)
	foo := newFoo(ns, "alpha", "alpha", 1)
	foo.SetFinalizers([]string{fooFinalizer})
	out, err := foos.Create(ctx, foo, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	foo, err = toUnstructured(out)
	if err != nil {
		return err
	}
	out, err = deps.Create(ctx, newDeployment(foo, "alpha", 1), metav1.CreateOptions{})
	if err != nil {
		return err
	}
	dep, err := toUnstructured(out)
	if err != nil {
		return err
	}
	_ = unstructured.SetNestedField(dep.Object, int64(1), "status", "availableReplicas")
	if _, err := deps.UpdateStatus(ctx, dep, metav1.UpdateOptions{}); err != nil {
		return err
	}
	_ = unstructured.SetNestedField(foo.Object, int64(1), "status", "availableReplicas")
	_, err = foos.UpdateStatus(ctx, foo, metav1.UpdateOptions{})
	return err
}

// play runs the named chapters in order.
func (s *story) play(ctx context.Context, names []string) error {
	all := chapters()
	for i, name := range names {
		c := all[name]
		if s.step != nil {
			if err := s.step(ctx); err != nil {
				return err
			}
		}
		s.n.chapter(i+1, c.title, c.explanation)
		if err := c.play(s, ctx); err != nil {
			return err
		}
		if err := s.sleep(ctx, s.pause); err != nil {
			return err
		}
	}
	return nil
}

func (s *story) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitFor returns once cond holds at a quiet moment: in deterministic mode,
// when nothing waits at the gate and every goroutine is blocked.
func (s *story) waitFor(ctx context.Context, what string, cond func() bool) error {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s.g.wait(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if cond() {
			if !s.g.deterministic() {
				// Let the tail of the chapter print before the next one.
				return s.sleep(ctx, 200*time.Millisecond)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("demo: timed out waiting for %s", what)
		}
		if err := s.sleep(ctx, 50*time.Millisecond); err != nil {
			return err
		}
	}
}

// you narrates a write the learner's side of the story makes.
func (s *story) you(verb, kind, key string, do func() (runtime.Object, error)) error {
	return narratedWrite(s.n, stageStory, "you", verb, kind, key, do)
}

func (s *story) fooAvailable(name string, want int64) func() bool {
	return func() bool {
		foo, err := s.w.foos.Namespace(ns).Get(name)
		if err != nil {
			return false
		}
		have, _, _ := unstructured.NestedInt64(foo.Object, "status", "availableReplicas")
		return have == want && s.w.fooCtl.Counts().Success > 0
	}
}

func (s *story) initial(ctx context.Context) error {
	s.n.say("The API server already holds Foo default/alpha and its Deployment, left in sync by an earlier run of the controller.")
	s.w.start(ctx)
	return s.waitFor(ctx, "the initial reconcile", func() bool {
		return s.w.fooInf.HasSynced() && s.w.fooCtl.Counts().Success >= 1
	})
}

func (s *story) create(ctx context.Context) error {
	if err := s.you("CREATE", "Foo", ns+"/web", func() (runtime.Object, error) {
		return s.foos.Create(ctx, newFoo(ns, "web", "web", 3), metav1.CreateOptions{})
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web to report 3 available replicas", s.fooAvailable("web", 3))
}

func (s *story) patchReplicas(ctx context.Context, replicas int) error {
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	return s.you(fmt.Sprintf("PATCH (spec.replicas=%d)", replicas), "Foo", ns+"/web", func() (runtime.Object, error) {
		return s.foos.Patch(ctx, "web", types.MergePatchType, patch, metav1.PatchOptions{})
	})
}

func (s *story) scale(ctx context.Context) error {
	if err := s.patchReplicas(ctx, 5); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web to report 5 available replicas", s.fooAvailable("web", 5))
}

func (s *story) deploymentUID(name string) string {
	d, err := s.w.deployments.Namespace(ns).Get(name)
	if err != nil {
		return ""
	}
	return string(d.GetUID())
}

func (s *story) recreate(ctx context.Context) error {
	before := s.deploymentUID("web")
	if err := s.you("DELETE", "Deployment", ns+"/web", func() (runtime.Object, error) {
		return nil, s.deps.Delete(ctx, "web", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	want := s.fooAvailable("web", 5)
	return s.waitFor(ctx, "Deployment web to be recreated", func() bool {
		uid := s.deploymentUID("web")
		return uid != "" && uid != before && want()
	})
}

func (s *story) watchCounts() (lists, watches int64) {
	for _, l := range []*narratedLW{s.w.fooLW, s.w.depLW, s.w.simLW} {
		if l != nil {
			lists += l.lists.Load()
			watches += l.watches.Load()
		}
	}
	return lists, watches
}

func (s *story) watchDrop(ctx context.Context) error {
	// A watch that ends within a second without an event looks broken to
	// the Reflector, which then relists; let the watches age first.
	if err := s.sleep(ctx, 2*time.Second); err != nil {
		return err
	}
	lists, watches := s.watchCounts()
	s.n.step(tagStory, "the API server closes every open watch")
	s.srv.CloseWatches()
	n := int64(len(s.w.informers()))
	if err := s.waitFor(ctx, "every Reflector to re-watch", func() bool {
		_, w := s.watchCounts()
		return w >= watches+n
	}); err != nil {
		return err
	}
	l, _ := s.watchCounts()
	s.n.say("LISTs during this chapter: %d — a dropped watch costs no relist.", l-lists)
	return nil
}

func (s *story) relist(ctx context.Context) error {
	if err := s.sleep(ctx, 2*time.Second); err != nil {
		return err
	}
	lists, _ := s.watchCounts()
	before := s.deploymentUID("alpha")
	silent := s.srv.SilentResource(deployGVR).Namespace(ns)
	if err := s.you("DELETE (no watch event)", "Deployment", ns+"/alpha", func() (runtime.Object, error) {
		return nil, silent.Delete(ctx, "alpha", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	s.n.step(tagStory, "the API server compacts its history: resourceVersions before %d are gone", s.srv.CurrentResourceVersion())
	s.srv.Compact()
	s.n.step(tagStory, "the API server closes every open watch")
	s.srv.CloseWatches()
	n := int64(len(s.w.informers()))
	want := s.fooAvailableNamed("alpha", 1)
	return s.waitFor(ctx, "every Reflector to relist and alpha's Deployment to be recreated", func() bool {
		l, _ := s.watchCounts()
		uid := s.deploymentUID("alpha")
		return l >= lists+n && uid != "" && uid != before && want()
	})
}

func (s *story) fooAvailableNamed(name string, want int64) func() bool {
	return func() bool {
		foo, err := s.w.foos.Namespace(ns).Get(name)
		if err != nil {
			return false
		}
		d, err := s.w.deployments.Namespace(ns).Get(name)
		if err != nil {
			return false
		}
		have, _, _ := unstructured.NestedInt64(foo.Object, "status", "availableReplicas")
		avail, _, _ := unstructured.NestedInt64(d.Object, "status", "availableReplicas")
		return have == want && avail == want
	}
}

func (s *story) resync(ctx context.Context) error {
	before := s.w.resyncs.Load()
	lists, watches := s.watchCounts()
	if err := s.waitFor(ctx, "a resync", func() bool { return s.w.resyncs.Load() > before }); err != nil {
		return err
	}
	l, w := s.watchCounts()
	s.n.say("Requests to the API server during the resync: %d LIST, %d WATCH.", l-lists, w-watches)
	return nil
}

func (s *story) retry(ctx context.Context) error {
	s.n.step(tagStory, "the API server will fail the next 3 updates with 500 InternalError")
	if err := s.srv.FailNext("update", 3, 500); err != nil {
		return err
	}
	if err := s.patchReplicas(ctx, 4); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web to report 4 available replicas", s.fooAvailable("web", 4))
}

func (s *story) delete(ctx context.Context) error {
	if err := s.you("DELETE", "Foo", ns+"/web", func() (runtime.Object, error) {
		return nil, s.foos.Delete(ctx, "web", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web and its Deployment to be gone", func() bool {
		_, errF := s.w.foos.Namespace(ns).Get("web")
		_, errD := s.w.deployments.Namespace(ns).Get("web")
		_, errS := s.foos.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(errF) && apierrors.IsNotFound(errD) && apierrors.IsNotFound(errS)
	})
}
