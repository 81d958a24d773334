package demoengine

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	sc "github.com/informerlab/informerlab/samplecontroller"
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
	foos sc.Resource // the user's client
	deps sc.Resource
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
			"Each informer LISTs every object once, fills its cache, then WATCHes from the list's resourceVersion. The Manager starts the controllers only once both caches have synced: registering their handlers replays each cache as OnAdd notifications, so every object of the initial list is reconciled.",
			(*story).initial},
		{"create", "create a Foo",
			"You create Foo default/web asking for Deployment web-nginx with 3 replicas: the controller adds its finalizer, creates the Deployment, and the Foo's status converges as the Deployment becomes available. (fakeapi stores the Foo as sent. A real API server runs admission first: with the sample controller's webhooks installed, a Foo this controller would mark InvalidSpec is refused at create, before anything is stored or watched — docs/admission.md.)",
			(*story).create},
		{"scale", "scale it",
			"You change spec.replicas to 5: generation goes up, so the update passes GenerationChangedPredicate; the controller patches the Deployment, the status follows.",
			(*story).scale},
		{"recreate", "someone deletes the Deployment",
			"Deployment web-nginx is deleted behind the controller's back: its informer sees the DELETED event, the owner Foo is enqueued, and Reconcile recreates it (level-triggered: it compares what is with what should be).",
			(*story).recreate},
		{"watch-drop", "the watch connection drops",
			"The server closes every watch (a restart, a load balancer): each Reflector re-watches from the last resourceVersion it saw — no LIST, the cache is kept.",
			(*story).watchDrop},
		{"relist", "history expires while disconnected",
			"Deployment default/alpha-nginx is deleted without a watch event (as if missed while disconnected), the server compacts its history and drops the watches: re-watching gets 410 Expired, so each Reflector backs off and relists — Replaced deltas for every object, a tombstone for the one that vanished.",
			(*story).relist},
		{"resync", "a periodic resync",
			fmt.Sprintf("Every %s each informer replays its own cache as Sync deltas: no request reaches the API server (that is what makes it not a relist). Handlers get OnUpdate with identical objects: the Foo watch's predicate drops them, the Deployment watch enqueues each owner Foo, and the controller re-checks and finds nothing to write.", resyncPeriod),
			(*story).resync},
		{"retry", "a reconcile error",
			fmt.Sprintf("The API server will fail the next 3 patches with 500; you scale web to 4, and the controller's patch of the Deployment fails. Each failed Reconcile is retried with AddRateLimited after a growing delay (%s, %s, %s), then Forget resets the backoff.", sc.BackoffBase, 2*sc.BackoffBase, 4*sc.BackoffBase),
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
// Foo default/alpha and its Deployment alpha-nginx, in sync.
func seed(ctx context.Context, srv *fakeapi.Server) error {
	foos := srv.Resource(sc.FoosGVR).Namespace(ns)
	deps := srv.Resource(sc.DeploymentsGVR).Namespace(ns)
	foo := newFoo("alpha", "alpha-nginx", 1)
	foo.Finalizers = []string{sc.FinalizerName}
	out, err := foos.Create(ctx, foo, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	foo, ok := out.(*sc.Foo)
	if !ok {
		return fmt.Errorf("demo: the server returned %T for a Foo", out)
	}
	one := int32(1)
	yes := true
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	dep := &sc.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: sc.DeploymentGVK.GroupVersion().String(), Kind: sc.DeploymentGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "alpha-nginx", Namespace: ns, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind, Name: foo.Name, UID: foo.UID,
			Controller: &yes, BlockOwnerDeletion: &yes,
		}}},
		Spec: sc.DeploymentSpec{
			Replicas: &one,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: sc.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       sc.PodSpec{Containers: []sc.Container{{Name: "nginx", Image: sc.DefaultImage}}},
			},
		},
	}
	out, err = deps.Create(ctx, dep, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	dep, ok = out.(*sc.Deployment)
	if !ok {
		return fmt.Errorf("demo: the server returned %T for a Deployment", out)
	}
	dep.Status = sc.DeploymentStatus{ObservedGeneration: dep.Generation, Replicas: 1, UpdatedReplicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}
	if _, err := deps.UpdateStatus(ctx, dep, metav1.UpdateOptions{}); err != nil {
		return err
	}
	// The status the controller would write: 1 of 1 available, Ready.
	foo.Status.AvailableReplicas = 1
	foo.Status.ObservedGeneration = foo.Generation
	meta.SetStatusCondition(&foo.Status.Conditions, metav1.Condition{
		Type: sc.ConditionReady, Status: metav1.ConditionTrue, Reason: sc.ReasonAvailable,
		Message: `Deployment "alpha-nginx" has 1 of 1 replicas available`, ObservedGeneration: foo.Generation,
	})
	_, err = foos.UpdateStatus(ctx, foo, metav1.UpdateOptions{})
	return err
}

// newFoo is a Foo as a user would write it.
func newFoo(name, deploymentName string, replicas int32) *sc.Foo {
	return &sc.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       sc.FooSpec{DeploymentName: deploymentName, Replicas: &replicas},
	}
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

// you runs and narrates a write the learner's side of the story makes.
func (s *story) you(verb, kind, key string, do func() (runtime.Object, error)) error {
	// Watch events wait until this line is printed (live mode).
	s.w.writes.hold()
	defer s.w.writes.release()
	out, err := do()
	if err != nil {
		s.n.step(tagWrite, "you: %s %s %s → %s", verb, kind, key, errorSummary(err))
		return err
	}
	rv := ""
	if out != nil {
		rv = " → rv " + pipelineweb.ObjectRV(out)
	}
	s.n.line(stageStory, 0, tagWrite, "you: %s %s %s%s", verb, kind, key, rv)
	return nil
}

// fooConverged reports whether Foo name, in the cache, says its Deployment
// has want replicas available, and the Deployment agrees.
func (s *story) fooConverged(name string, want int32) func() bool {
	return func() bool {
		foo, err := s.w.foos.Namespace(ns).Get(name)
		if err != nil || foo.Status.AvailableReplicas != want || foo.Status.ObservedGeneration != foo.Generation {
			return false
		}
		d, err := s.w.deployments.Namespace(ns).Get(foo.Spec.DeploymentName)
		return err == nil && d.Status.AvailableReplicas == want
	}
}

func (s *story) initial(ctx context.Context) error {
	s.n.say("The API server already holds Foo default/alpha and its Deployment alpha-nginx, left in sync by an earlier run of the controller.")
	s.w.start(ctx)
	return s.waitFor(ctx, "the initial reconcile", func() bool {
		return s.w.fooInf.HasSynced() && s.w.ctl.FooController().Counts().Success >= 1
	})
}

func (s *story) create(ctx context.Context) error {
	if err := s.you("CREATE", "Foo", ns+"/web", func() (runtime.Object, error) {
		return s.foos.Create(ctx, newFoo("web", "web-nginx", 3), metav1.CreateOptions{})
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web to report 3 available replicas", s.fooConverged("web", 3))
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
	return s.waitFor(ctx, "Foo web to report 5 available replicas", s.fooConverged("web", 5))
}

func (s *story) deploymentUID(name string) string {
	d, err := s.w.deployments.Namespace(ns).Get(name)
	if err != nil {
		return ""
	}
	return string(d.UID)
}

func (s *story) recreate(ctx context.Context) error {
	before := s.deploymentUID("web-nginx")
	if err := s.you("DELETE", "Deployment", ns+"/web-nginx", func() (runtime.Object, error) {
		return nil, s.deps.Delete(ctx, "web-nginx", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	want := s.fooConverged("web", 5)
	return s.waitFor(ctx, "Deployment web-nginx to be recreated", func() bool {
		uid := s.deploymentUID("web-nginx")
		return uid != "" && uid != before && want()
	})
}

func (s *story) watchCounts() (lists, watches int64) {
	for _, l := range s.w.lws() {
		lists += l.gated.lists.Load()
		watches += l.gated.watches.Load()
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
	n := int64(len(s.w.lws()))
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
	before := s.deploymentUID("alpha-nginx")
	silent := s.srv.SilentResource(sc.DeploymentsGVR).Namespace(ns)
	if err := s.you("DELETE (no watch event)", "Deployment", ns+"/alpha-nginx", func() (runtime.Object, error) {
		return nil, silent.Delete(ctx, "alpha-nginx", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	// Each Reflector backs off (with random jitter) before it relists; the
	// gate holds the first LIST until the last arrives, so that they relist
	// at one moment in a fixed order (deterministic mode only).
	s.g.holdListsUntil(len(s.w.lws()))
	s.n.step(tagStory, "the API server compacts its history: resourceVersions before %d are gone", s.srv.CurrentResourceVersion())
	s.srv.Compact()
	s.n.step(tagStory, "the API server closes every open watch")
	s.srv.CloseWatches()
	n := int64(len(s.w.lws()))
	want := s.fooConverged("alpha", 1)
	return s.waitFor(ctx, "every Reflector to relist and alpha's Deployment to be recreated", func() bool {
		l, _ := s.watchCounts()
		uid := s.deploymentUID("alpha-nginx")
		return l >= lists+n && uid != "" && uid != before && want()
	})
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
	s.n.step(tagStory, "the API server will fail the next 3 patches with 500 InternalError")
	if err := s.srv.FailNext("patch", 3, 500); err != nil {
		return err
	}
	// An update, not a patch: the failures are for the controller.
	if err := s.you("UPDATE (spec.replicas=4)", "Foo", ns+"/web", func() (runtime.Object, error) {
		out, err := s.foos.Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		foo, ok := out.(*sc.Foo)
		if !ok {
			return nil, fmt.Errorf("demo: the server returned %T for a Foo", out)
		}
		four := int32(4)
		foo.Spec.Replicas = &four
		return s.foos.Update(ctx, foo, metav1.UpdateOptions{})
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web to report 4 available replicas", s.fooConverged("web", 4))
}

func (s *story) delete(ctx context.Context) error {
	if err := s.you("DELETE", "Foo", ns+"/web", func() (runtime.Object, error) {
		return nil, s.foos.Delete(ctx, "web", metav1.DeleteOptions{})
	}); err != nil {
		return err
	}
	return s.waitFor(ctx, "Foo web and its Deployment to be gone", func() bool {
		_, errF := s.w.foos.Namespace(ns).Get("web")
		_, errD := s.w.deployments.Namespace(ns).Get("web-nginx")
		_, errS := s.foos.Get(ctx, "web", metav1.GetOptions{})
		return apierrors.IsNotFound(errF) && apierrors.IsNotFound(errD) && apierrors.IsNotFound(errS)
	})
}
