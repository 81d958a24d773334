package samplecontrollertest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane"
	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
	"github.com/informerlab/informerlab/samplecontroller/deploy"
)

// The ServiceAccount of samplecontroller/deploy/rbac.yaml, and the
// namespace its Leases role is in.
const (
	saNamespace = "samplecontroller-system"
	saName      = "samplecontroller"
)

// rbacEnv is a control plane with --authorization-mode=RBAC, the sample
// controller's manifests applied, and a kubeconfig with its
// ServiceAccount's token.
type rbacEnv struct {
	cp         *controlplane.ControlPlane
	admin      *client.Client // system:masters: may do anything
	kubeconfig string         // the ServiceAccount's
	bin        string         // cmd/samplecontroller
}

// TestSampleControllerUnderRBAC runs cmd/samplecontroller against a
// kube-apiserver with --authorization-mode=RBAC, as the ServiceAccount of
// samplecontroller/deploy/rbac.yaml (and simulator-rbac.yaml, for
// --simulate-deployments), with a token from the TokenRequest API:
//
//  1. with exactly those rules, one replica makes every Foo's Deployment,
//     scales it, reports its status, cleans it up through the finalizer and
//     records Events, and no request is refused;
//  2. so does a sharded ring of three replicas, Leases included: they
//     share the buckets, make twelve Foos ready, and run the same steps;
//  3. with any one rule taken out, a one-replica ring (which uses every
//     rule) logs, at WARN or ERROR, the refusal naming that verb and
//     resource: the rule is needed, and its absence is never silent.
//
// Diagram: none (what the informers of step 1 and the writes of step 9 may do at all). client-go: none (RBAC, rbac.authorization.k8s.io/v1; the TokenRequest API)
func TestSampleControllerUnderRBAC(t *testing.T) {
	env := startRBACEnv(t)

	t.Run("one replica with the role", func(t *testing.T) {
		env.applyRoles(t, nil)
		ns := testenv.NamespaceOn(t, env.cp)
		p := startProcess(t, "solo", env.bin, func(*replicaProcess) []string {
			return []string{"--kubeconfig", env.kubeconfig, "--namespace", ns, "--simulate-deployments", "--log-level", "warn"}
		})

		stuck := env.scenario(t, ns, p, func() string { return "" })

		assert.Empty(t, stuck, "every step completes")
		assert.Empty(t, refusals(t, p), "no request refused")
		p.stop(t)
	})

	t.Run("a ring of three with the role", func(t *testing.T) {
		env.applyRoles(t, nil)
		ns := testenv.NamespaceOn(t, env.cp)
		ring := procRing{env.bin, env.kubeconfig, ns, "rbac-three"}
		var ps []*replicaProcess
		for i := range 3 {
			ps = append(ps, ring.startWith(t, fmt.Sprintf("rbac-three-%d", i), "--lease-namespace", saNamespace))
		}

		buckets := createFoos(t, env.admin, ns, 12)
		waitReady(t, env.admin, ns, 12)
		waitProcShares(t, ps, buckets)
		stuck := env.scenario(t, ns, ps[0], func() string { return "" })

		assert.Empty(t, stuck, "every step completes")
		for _, p := range ps {
			assert.Empty(t, refusals(t, p), "%s: no request refused", p.name)
			p.stop(t)
		}
	})

	var rules []deploy.Rule
	for _, manifest := range []string{deploy.RBAC(), deploy.SimulatorRBAC()} {
		rs, err := deploy.Rules(manifest)
		require.NoError(t, err)
		rules = append(rules, rs...)
	}
	for i, rule := range rules {
		t.Run("without "+rule.String(), func(t *testing.T) {
			env.applyRoles(t, &rule)
			ns := testenv.NamespaceOn(t, env.cp)
			ring := fmt.Sprintf("rbac-without-%d", i)
			p := procRing{env.bin, env.kubeconfig, ns, ring}.startWith(t, ring+"-0", "--lease-namespace", saNamespace)
			refused := func() string { return refusalOf(t, p, rule) }

			stuck := env.scenario(t, ns, p, refused)

			line := refused()
			require.NotEmpty(t, line, "without %s, nothing named the refusal; the scenario stopped at %q (\"\" is its end)", rule, stuck)
			level := regexp.MustCompile(`level=(\w+)`).FindStringSubmatch(line)
			require.NotNil(t, level, "a log line: %s", line)
			assert.Contains(t, []string{"WARN", "ERROR"}, level[1], "logged where --log-level warn shows it")
			t.Logf("without %s: %s", rule, summary(line))
		})
	}
}

// startRBACEnv starts the RBAC control plane, installs the Foo CRD, applies
// the manifests, mints a token for the ServiceAccount and writes a
// kubeconfig with it.
func startRBACEnv(t *testing.T) *rbacEnv {
	t.Helper()
	cp := testenv.StartControlPlane(t, "rbac", controlplane.Options{AuthorizationMode: "RBAC"})
	testenv.InstallFooCRDOn(t, cp)
	env := &rbacEnv{cp: cp, admin: testenv.ClientOf(t, cp, sc.NewScheme()), bin: buildSampleController(t)}
	env.applyRoles(t, nil)
	// POST .../serviceaccounts/samplecontroller/token: a bound token, as a
	// Pod's projected volume would hold.
	token := strings.TrimSpace(testenv.KubectlOn(t, cp, "create", "token", saName, "-n", saNamespace, "--duration=2h"))
	require.NotEmpty(t, token)
	env.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, client.WriteKubeconfig(env.kubeconfig, saName,
		&client.Config{Server: cp.URL, BearerToken: token, Namespace: "default", TLS: client.TLSConfig{CAData: cp.CAPEM}}))
	who := testenv.KubectlOn(t, cp, "--kubeconfig", env.kubeconfig, "auth", "whoami", "-o", "jsonpath={.status.userInfo.username}")
	require.Equal(t, "system:serviceaccount:"+saNamespace+":"+saName, who)
	return env
}

// applyRoles applies rbac.yaml and simulator-rbac.yaml as the
// administrator, without rule if it is not nil, and waits until the
// authorizer agrees: the ServiceAccount may do what the rules say, and not
// the verbs of rule.
func (e *rbacEnv) applyRoles(t *testing.T, rule *deploy.Rule) {
	t.Helper()
	var items []any
	for _, manifest := range []string{deploy.RBAC(), deploy.SimulatorRBAC()} {
		rules, err := deploy.Rules(manifest)
		require.NoError(t, err)
		objs, err := deploy.Objects(manifest)
		require.NoError(t, err)
		for _, r := range rules {
			if rule != nil && r.Role == rule.Role && r.Index == rule.Index {
				objs, err = deploy.WithoutRule(manifest, r)
				require.NoError(t, err)
			}
		}
		for _, obj := range objs {
			items = append(items, obj.Object)
		}
	}
	list, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	require.NoError(t, err)
	_, err = testenv.KubectlStdinOn(t, e.cp, string(list), "apply", "-f", "-")
	require.NoError(t, err)
	if rule == nil {
		return
	}
	eventually(t, "the authorizer to refuse "+rule.String(), func() bool {
		for _, check := range canIArgs(*rule) {
			out, _ := testenv.KubectlStdinOn(t, e.cp, "", append(check, "--as=system:serviceaccount:"+saNamespace+":"+saName, "-n", saNamespace)...)
			if strings.TrimSpace(out) != "no" {
				return false
			}
		}
		return true
	})
}

// canIArgs are the kubectl auth can-i commands that ask for each verb of
// rule, on each of its resources.
func canIArgs(rule deploy.Rule) [][]string {
	var out [][]string
	for _, verb := range rule.Verbs {
		for _, res := range rule.Resources {
			res, sub, _ := strings.Cut(res, "/")
			for _, g := range rule.APIGroups {
				name := res
				if g != "" {
					name += "." + g
				}
				args := []string{"auth", "can-i", verb, name}
				if sub != "" {
					args = append(args, "--subresource="+sub)
				}
				out = append(out, args)
			}
		}
	}
	return out
}

// scenario drives Foos in ns through everything the sample controller does,
// for the controller process p, and returns "" once every step is done, or
// the step it stopped at because refused() found a refusal (or because the
// step did not complete in time):
//
//  0. before p works: Foo "pre" and a Deployment "pre" it controls, made by
//     hand without the bucket label (sharded, the controller's create meets
//     it and reads it from the API to label it);
//  1. Foo "web" is created; both Foos get their Deployment and become ready;
//  2. web is scaled to 2, and reports 2 available;
//  3. web is deleted: the finalizer deletes its Deployment, then lets go;
//  4. web's Synced Event has been counted twice (a patch of the Event).
func (e *rbacEnv) scenario(t *testing.T, ns string, p *replicaProcess, refused func() string) string {
	t.Helper()
	foos := e.admin.Resource(sc.FoosGVR).Namespace(ns)
	pre := createFoo(t, foos, ns, "pre", 1)
	one := int32(1)
	labels := map[string]string{"app": "nginx", "controller": "pre"}
	_, err := e.admin.Resource(sc.DeploymentsGVR).Namespace(ns).Create(t.Context(), &sc.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: sc.DeploymentGVK.GroupVersion().String(), Kind: sc.DeploymentGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: "pre", Namespace: ns,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(pre, sc.FooGVK)}},
		Spec: sc.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: sc.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: sc.PodSpec{Containers: []sc.Container{{Name: "nginx", Image: sc.DefaultImage}}}}},
	}, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		// A replica that was already running reconciled "pre" first and
		// made its Deployment (labelled): the unlabelled path is then not
		// taken, which only the fresh one-replica runs below rely on.
		t.Logf("Deployment pre was created by the controller before the test could create it unlabelled")
		err = nil
	}
	require.NoError(t, err)

	steps := []struct {
		name string
		act  func()
		done func() bool
	}{
		{"1. both Foos ready", func() { createFoo(t, foos, ns, "web", 1) },
			func() bool { return notReady(t, e.admin, ns) == "" }},
		{"2. web scaled to 2", func() {
			_, err := foos.Patch(t.Context(), "web", types.MergePatchType, []byte(`{"spec":{"replicas":2}}`), metav1.PatchOptions{})
			require.NoError(t, err)
		}, func() bool {
			foo := fooOrNil(t, e.admin, ns, "web")
			return foo != nil && available(2)(foo, false)
		}},
		{"3. web deleted, its Deployment first", func() {
			require.NoError(t, foos.Delete(t.Context(), "web", metav1.DeleteOptions{}))
		}, func() bool { return fooOrNil(t, e.admin, ns, "web") == nil }},
		{"4. web's Synced Event counted twice", func() {},
			func() bool { return syncedCount(t, e.admin, ns, "web") >= 2 }},
	}
	for _, step := range steps {
		step.act()
		deadline := time.Now().Add(wait)
		for !step.done() {
			if refused() != "" || time.Now().After(deadline) {
				return step.name
			}
			select {
			case <-p.done:
				return step.name + " (the controller exited)"
			case <-time.After(200 * time.Millisecond): // a real server and a process: poll with a deadline
			}
		}
	}
	return ""
}

// createFoo creates Foo name in ns with replicas, its Deployment named
// after it, and returns it as stored.
func createFoo(t *testing.T, foos *client.ResourceClient, ns, name string, replicas int32) *sc.Foo {
	t.Helper()
	obj, err := foos.Create(t.Context(), &sc.Foo{
		TypeMeta:   metav1.TypeMeta{APIVersion: sc.FooGVK.GroupVersion().String(), Kind: sc.FooGVK.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       sc.FooSpec{DeploymentName: name, Replicas: &replicas},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	return obj.(*sc.Foo)
}

// fooOrNil reads Foo name of ns through c; nil when it is gone.
func fooOrNil(t *testing.T, c *client.Client, ns, name string) *sc.Foo {
	t.Helper()
	obj, err := c.Resource(sc.FoosGVR).Namespace(ns).Get(t.Context(), name, metav1.GetOptions{})
	if isNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return obj.(*sc.Foo)
}

// syncedCount returns the count of the Synced Event about Foo name in ns
// (0 if there is none).
func syncedCount(t *testing.T, c *client.Client, ns, name string) int64 {
	t.Helper()
	list, err := c.Resource(schema.GroupVersionResource{Version: "v1", Resource: "events"}).Namespace(ns).List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)
	var n int64
	for _, item := range list.(*unstructured.UnstructuredList).Items {
		involved, _, _ := unstructured.NestedString(item.Object, "involvedObject", "name")
		reason, _, _ := unstructured.NestedString(item.Object, "reason")
		if involved == name && reason == sc.EventReasonSynced {
			count, _, _ := unstructured.NestedInt64(item.Object, "count")
			n = max(n, count)
		}
	}
	return n
}

// stderrLines returns p's standard error so far, line by line, with the
// text handler's \" unescaped so that the server's messages read as sent.
func stderrLines(t *testing.T, p *replicaProcess) []string {
	t.Helper()
	b, err := os.ReadFile(p.stderr)
	require.NoError(t, err)
	return strings.Split(strings.ReplaceAll(string(b), `\"`, `"`), "\n")
}

// refusals returns every line of p's stderr that reports a refused request.
func refusals(t *testing.T, p *replicaProcess) []string {
	var out []string
	for _, line := range stderrLines(t, p) {
		if strings.Contains(line, "forbidden") || strings.Contains(line, "Unauthorized") {
			out = append(out, line)
		}
	}
	return out
}

// refusalOf returns the first line of p's stderr where the server refused
// one of the verbs of rule on one of its resources ("" if none yet):
// kube-apiserver's message says `cannot VERB resource "RESOURCE" in API
// group "GROUP"`.
func refusalOf(t *testing.T, p *replicaProcess, rule deploy.Rule) string {
	var want []string
	for _, verb := range rule.Verbs {
		for _, res := range rule.Resources {
			for _, g := range rule.APIGroups {
				want = append(want, fmt.Sprintf(`cannot %s resource %q in API group %q`, verb, res, g))
			}
		}
	}
	for _, line := range stderrLines(t, p) {
		for _, w := range want {
			if strings.Contains(line, w) {
				return line
			}
		}
	}
	return ""
}

// summary shortens a refusal log line to its level, message and the
// server's reason.
func summary(line string) string {
	level := regexp.MustCompile(`level=\w+`).FindString(line)
	msg := regexp.MustCompile(`msg="[^"]*"`).FindString(line)
	reason := regexp.MustCompile(`cannot \w+ resource "[^"]*" in API group "[^"]*"`).FindString(line)
	return strings.Join([]string{level, msg, reason}, " ")
}
