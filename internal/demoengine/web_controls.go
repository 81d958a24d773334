package demoengine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/internal/pipelineweb"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// webControls carries out the page's actions: your writes, the faults
// fakeapi can inject, and the scenarios of the story. It publishes what it
// does on the page.
type webControls struct {
	rec  *pipelineweb.Recorder
	n    *narrator
	w    *world
	srv  *fakeapi.Server // nil against a remote server: no faults
	foos sc.Resource     // your handles, in namespace
	deps sc.Resource
	// storyFoos and storyDeps are the same for the scenarios, whose
	// chapters narrate their writes themselves.
	storyFoos, storyDeps sc.Resource
	namespace            string
	info                 pipelineweb.Info
	// runCtx is the run's context: scenarios outlive the request that
	// started them.
	runCtx context.Context

	mu        sync.Mutex // guards scenario and latency
	scenario  string     // playing, "" if none
	latency   time.Duration
	scenarios sync.WaitGroup
}

// maxReplicas bounds the replicas the page asks for.
const maxReplicas = 10

// failedPatches is how many patches "make Reconcile fail" fails: the tenth
// retry waits 2.56s, long enough to watch the countdown.
const failedPatches = 10

func (c *webControls) Info() pipelineweb.Info { return c.info }

func (c *webControls) Status() pipelineweb.Status {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := pipelineweb.Status{Scenario: c.scenario, LatencyMS: float64(c.latency) / float64(time.Millisecond)}
	if c.srv != nil {
		st.ServerRV = fmt.Sprint(c.srv.CurrentResourceVersion())
	}
	return st
}

// wait returns once no scenario is playing (they end with the run's
// context).
func (c *webControls) wait() { c.scenarios.Wait() }

func (c *webControls) Do(ctx context.Context, a pipelineweb.Action) (string, error) {
	switch a.Name {
	case "create", "scale", "delete", "fail-reconcile":
		if err := validName(a.Arg("name")); err != nil {
			return "", err
		}
	}
	switch a.Name {
	case "create":
		return c.create(ctx, a)
	case "scale":
		replicas, err := a.IntArg("replicas", 0, maxReplicas)
		if err != nil {
			return "", err
		}
		return c.scale(ctx, a.Arg("name"), replicas)
	case "delete":
		if err := c.foos.Delete(ctx, a.Arg("name"), metav1.DeleteOptions{}); err != nil {
			return "", fmt.Errorf("demo: delete Foo %s/%s: %s", c.namespace, a.Arg("name"), errorSummary(err))
		}
		return fmt.Sprintf("Foo %s/%s deleted: its finalizer keeps it until the controller has cleaned up", c.namespace, a.Arg("name")), nil
	}
	if c.srv == nil {
		switch a.Name {
		case "close-watches", "compact", "silent-delete", "latency", "fail-reconcile", "scenario":
			return "", fmt.Errorf("demo: %q needs the embedded fakeapi (run demo --web without --server or --kubeconfig)", a.Name)
		}
		return "", pipelineweb.ErrUnknownAction
	}
	switch a.Name {
	case "close-watches":
		c.srv.CloseWatches()
		return c.fault("the API server closed every open watch: each Reflector re-watches from its last resourceVersion, no relist"), nil
	case "compact":
		rv := c.srv.CurrentResourceVersion()
		c.srv.Compact()
		c.srv.CloseWatches()
		return c.fault(fmt.Sprintf("the API server compacted its history (resourceVersions before %d are gone) and closed every watch: re-watching gets 410 Expired, so each Reflector backs off and relists", rv)), nil
	case "silent-delete":
		return c.silentDelete(ctx, a)
	case "latency":
		ms, err := a.IntArg("ms", 0, 5000)
		if err != nil {
			return "", err
		}
		d := time.Duration(ms) * time.Millisecond
		c.srv.SetLatency(d)
		c.mu.Lock()
		c.latency = d
		c.mu.Unlock()
		if ms == 0 {
			return c.fault("the API server answers at once again"), nil
		}
		return c.fault(fmt.Sprintf("every request to the API server now takes %s longer", d)), nil
	case "fail-reconcile":
		return c.failReconcile(ctx, a.Arg("name"))
	case "scenario":
		return c.play(a.Arg("scenario"))
	}
	return "", pipelineweb.ErrUnknownAction
}

func validName(name string) error {
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return fmt.Errorf("demo: Foo name %q: %s", name, strings.Join(msgs, "; "))
	}
	return nil
}

// fault publishes a fault on the page and the terminal, and returns its
// description.
func (c *webControls) fault(text string) string {
	c.rec.Publish(pipelineweb.Event{Op: pipelineweb.OpFault, Tag: pipelineweb.TagStory, Text: text})
	c.n.step(tagStory, "%s", text)
	return text
}

func (c *webControls) create(ctx context.Context, a pipelineweb.Action) (string, error) {
	replicas, err := a.IntArg("replicas", 0, maxReplicas)
	if err != nil {
		return "", err
	}
	name := a.Arg("name")
	foo := newFoo(name, name+"-nginx", int32(replicas))
	foo.Namespace = c.namespace
	if _, err := c.foos.Create(ctx, foo, metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("demo: create Foo %s/%s: %s", c.namespace, name, errorSummary(err))
	}
	return fmt.Sprintf("Foo %s/%s created, asking for Deployment %s-nginx with %d replica(s)", c.namespace, name, name, replicas), nil
}

func (c *webControls) scale(ctx context.Context, name string, replicas int) (string, error) {
	patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
	if _, err := c.foos.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return "", fmt.Errorf("demo: scale Foo %s/%s: %s", c.namespace, name, errorSummary(err))
	}
	return fmt.Sprintf("Foo %s/%s scaled to %d: its generation goes up", c.namespace, name, replicas), nil
}

// silentDelete deletes an object without a watch event, as if the deletion
// happened while the Reflector was disconnected.
func (c *webControls) silentDelete(ctx context.Context, a pipelineweb.Action) (string, error) {
	name := a.Arg("name")
	if err := validName(name); err != nil {
		return "", err
	}
	gvr := sc.DeploymentsGVR
	switch a.Arg("kind") {
	case "Foo":
		gvr = sc.FoosGVR
	case "Deployment":
	default:
		return "", fmt.Errorf("demo: silent delete: kind %q is neither Foo nor Deployment", a.Arg("kind"))
	}
	kind := a.Arg("kind")
	if err := c.srv.SilentResource(gvr).Namespace(c.namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return "", fmt.Errorf("demo: silent delete %s %s/%s: %s", kind, c.namespace, name, errorSummary(err))
	}
	text := fmt.Sprintf("you: DELETE (no watch event) %s %s/%s", kind, c.namespace, name)
	c.rec.Publish(pipelineweb.Event{Op: pipelineweb.OpYou, Tag: pipelineweb.TagWrite, Kind: kind, Key: c.namespace + "/" + name, Verb: "delete", Text: text})
	c.n.line(stageStory, 0, tagWrite, "%s", text)
	return c.fault(fmt.Sprintf("%s %s/%s was deleted without a watch event: the cache still holds it until a relist (press Compact) finds it gone and queues a tombstone", kind, c.namespace, name)), nil
}

// failReconcile makes the API server fail the next patches, then changes
// Foo name's replicas (by an update, which does not fail): the controller's
// patch of its Deployment fails, and each failed Reconcile is retried after
// a growing delay.
func (c *webControls) failReconcile(ctx context.Context, name string) (string, error) {
	out, err := c.foos.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("demo: make Reconcile fail: Foo %s/%s: %s", c.namespace, name, errorSummary(err))
	}
	foo, ok := out.(*sc.Foo)
	if !ok {
		return "", fmt.Errorf("demo: the server returned %T for a Foo", out)
	}
	replicas := int32(1)
	if foo.Spec.Replicas != nil {
		replicas = *foo.Spec.Replicas + 1
	}
	if replicas > maxReplicas {
		replicas = 1
	}
	if err := c.srv.FailNext("patch", failedPatches, 500); err != nil {
		return "", err
	}
	c.fault(fmt.Sprintf("the API server will fail the next %d patches with 500 InternalError", failedPatches))
	foo.Spec.Replicas = &replicas
	if _, err := c.foos.Update(ctx, foo, metav1.UpdateOptions{}); err != nil {
		_ = c.srv.FailNext("patch", 0, 500)
		return "", fmt.Errorf("demo: make Reconcile fail: update Foo %s/%s: %s", c.namespace, name, errorSummary(err))
	}
	return fmt.Sprintf("Foo %s/%s set to %d replicas: the controller's patch of its Deployment fails %d times, each retry waits twice as long (%s, %s, %s, ...)",
		c.namespace, name, replicas, failedPatches, sc.BackoffBase, 2*sc.BackoffBase, 4*sc.BackoffBase), nil
}

// setHandles sets your handles of Foos and Deployments in the namespace.
func (c *webControls) setHandles(foos, deps sc.Resource) {
	c.foos = youResource{Resource: foos, kind: "Foo", c: c, narrate: true}
	c.deps = youResource{Resource: deps, kind: "Deployment", c: c, narrate: true}
	c.storyFoos = youResource{Resource: foos, kind: "Foo", c: c}
	c.storyDeps = youResource{Resource: deps, kind: "Deployment", c: c}
}

// youResource publishes every write made through it as yours, on the page,
// and with narrate on the terminal too.
type youResource struct {
	sc.Resource
	kind    string
	c       *webControls
	narrate bool
}

func (r youResource) said(verb, name string, out runtime.Object, err error) {
	key := r.c.namespace + "/" + name
	text := fmt.Sprintf("you: %s %s %s", verb, r.kind, key)
	e := pipelineweb.Event{Op: pipelineweb.OpYou, Tag: pipelineweb.TagWrite, Kind: r.kind, Key: key, Verb: strings.ToLower(verb)}
	switch {
	case err != nil:
		e.Err = errorSummary(err)
		text += " → " + e.Err
	case out != nil:
		e.RV = pipelineweb.ObjectRV(out)
		text += " → rv " + e.RV
	}
	e.Text = text
	r.c.rec.Publish(e)
	if r.narrate {
		r.c.n.line(stageStory, 0, tagWrite, "%s", text)
	}
}

func (r youResource) Create(ctx context.Context, obj runtime.Object, opts metav1.CreateOptions) (runtime.Object, error) {
	out, err := r.Resource.Create(ctx, obj, opts)
	r.said("CREATE", objectName(obj), out, err)
	return out, err
}

func (r youResource) Update(ctx context.Context, obj runtime.Object, opts metav1.UpdateOptions) (runtime.Object, error) {
	out, err := r.Resource.Update(ctx, obj, opts)
	r.said("UPDATE", objectName(obj), out, err)
	return out, err
}

func (r youResource) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions) (runtime.Object, error) {
	out, err := r.Resource.Patch(ctx, name, pt, data, opts)
	r.said("PATCH", name, out, err)
	return out, err
}

func (r youResource) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	err := r.Resource.Delete(ctx, name, opts)
	r.said("DELETE", name, nil, err)
	return err
}

func objectName(obj runtime.Object) string {
	key := pipelineweb.ObjectKey(obj)
	if _, name, ok := strings.Cut(key, "/"); ok {
		return name
	}
	return key
}
