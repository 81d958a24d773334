// Package testenv is what every test package of this module shares: one
// control plane per test binary ([Main]), started before the tests and stopped
// after them, a fresh namespace per test ([Namespace]), a client built from
// the control plane's kubeconfig ([Client]), and kubectl ([Kubectl]); and
// control planes besides it: [GateOff], shared, and [StartControlPlane], a
// test's own, with its own flags.
//
// The control plane has no kube-controller-manager, so a deleted namespace
// stays Terminating: tests never share a namespace, and never wait for one
// to go away.
package testenv

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informerlab/informerlab/client"
	"github.com/informerlab/informerlab/e2e/controlplane"
)

// shared is the control plane Main started; nil outside Main.
var shared *controlplane.ControlPlane

// gateOff is the second control plane GateOff starts on first use, with
// the ShardedListAndWatch gate off; Run stops it.
var gateOff struct {
	once sync.Once
	cp   *controlplane.ControlPlane
	err  error
}

// Main starts one control plane, runs the tests, stops the control plane and
// exits. Call it from TestMain. The first run on a machine builds
// kube-apiserver and etcd (minutes); that happens before m.Run, so it does not
// count against go test's -timeout.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main without the exit: it returns the exit code, for a TestMain
// that has more to clean up.
func Run(m *testing.M) int {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cp, err := controlplane.Start(ctx, controlplane.Options{Logger: logger})
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		return 1
	}
	shared = cp
	code := m.Run()
	for _, p := range []*controlplane.ControlPlane{gateOff.cp, cp} {
		if p == nil {
			continue
		}
		if err := p.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "testenv: stop:", err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// ControlPlane returns the control plane Main started.
func ControlPlane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	require.NotNil(t, shared, "testenv: no control plane: call testenv.Main from TestMain")
	return shared
}

// GateOff returns a second control plane, started on the first call of the
// test binary (a few seconds with cached binaries) and stopped by Main: the
// same kube-apiserver and etcd versions, its own etcd, with the
// ShardedListAndWatch feature gate off, as a cluster that does not serve
// shard selectors. Tests of sharding run on both: [ControlPlane] filters a
// list or watch by shardSelector, GateOff answers as if none were asked.
// Use ClientOf, NamespaceOn, InstallFooCRDOn and KubectlOn with it.
func GateOff(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	require.NotNil(t, shared, "testenv: no control plane: call testenv.Main from TestMain")
	gateOff.once.Do(func() {
		gateOff.cp, gateOff.err = startPlane("gate-off", controlplane.Options{
			// Later flags win: this turns off the gate the default flags turn on.
			ExtraAPIServerFlags: []string{"--feature-gates=ShardedListAndWatch=false"},
		})
	})
	require.NoError(t, gateOff.err, "testenv: start the gate-off control plane")
	return gateOff.cp
}

// StartControlPlane starts a control plane of this test's own, configured
// by opts (say, AuthorizationMode "RBAC", or kube-apiserver flags that name
// files the test wrote), and stops it when the test ends. Its logs go to
// stderr tagged plane=name. Files the flags name must outlive it: make them
// in a t.TempDir() before calling, so that they are removed after it stops.
// Use ClientOf, NamespaceOn, InstallFooCRDOn and KubectlOn with it.
func StartControlPlane(t testing.TB, name string, opts controlplane.Options) *controlplane.ControlPlane {
	t.Helper()
	cp, err := startPlane(name, opts)
	require.NoError(t, err, "testenv: start the %s control plane", name)
	t.Cleanup(func() {
		if err := cp.Stop(); err != nil {
			t.Errorf("testenv: stop the %s control plane: %v", name, err)
		}
	})
	return cp
}

// startPlane starts a control plane besides the shared one: the path of
// GateOff and StartControlPlane.
func startPlane(name string, opts controlplane.Options) (*controlplane.ControlPlane, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	opts.Logger = slog.New(slog.NewTextHandler(os.Stderr, nil)).With("plane", name)
	return controlplane.Start(ctx, opts)
}

// Scheme returns a scheme with the core/v1 types: ConfigMaps, PodTemplates,
// Namespaces, Events and the rest decode into their Go types.
func Scheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(s))
	return s
}

// Client returns a client for the control plane, configured from its
// kubeconfig (server, certificate-authority-data, token) by
// client.LoadKubeconfig, with scheme (nil: everything unstructured).
func Client(t testing.TB, scheme *runtime.Scheme) *client.Client {
	t.Helper()
	return ClientOf(t, ControlPlane(t), scheme)
}

// ClientOf is Client for the control plane cp (ControlPlane or GateOff).
func ClientOf(t testing.TB, cp *controlplane.ControlPlane, scheme *runtime.Scheme) *client.Client {
	t.Helper()
	cfg, err := client.LoadKubeconfig(cp.KubeconfigPath)
	require.NoError(t, err)
	c, err := client.New(cfg, scheme)
	require.NoError(t, err)
	return c
}

// Namespace creates a namespace for this test alone, named after it, and
// deletes it when the test ends (it then stays Terminating: nothing finalizes
// namespaces without kube-controller-manager).
func Namespace(t testing.TB) string {
	t.Helper()
	return NamespaceOn(t, ControlPlane(t))
}

// NamespaceOn is Namespace on the control plane cp.
func NamespaceOn(t testing.TB, cp *controlplane.ControlPlane) string {
	t.Helper()
	name := namespaceName(t.Name())
	nss := ClientOf(t, cp, nil).Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	ns := &corev1.Namespace{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := nss.Create(ctx, ns, metav1.CreateOptions{})
	require.NoError(t, err, "create namespace %s", name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = nss.Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name
}

// namespaceName turns a test name into a valid, unique namespace name:
// lower case letters, digits and dashes, at most 63 characters.
func namespaceName(test string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(test) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-")
	if len(base) > 50 {
		base = strings.TrimRight(base[:50], "-")
	}
	return base + "-" + strings.ToLower(rand.Text()[:8])
}

// Kubectl runs /usr/bin/kubectl against the control plane and returns its
// standard output; a failure fails the test with kubectl's output.
func Kubectl(t testing.TB, args ...string) string {
	t.Helper()
	out, err := KubectlErr(t, args...)
	require.NoError(t, err, "kubectl %s", strings.Join(args, " "))
	return out
}

// KubectlErr runs kubectl like Kubectl but returns its error (with stderr)
// instead of failing, for commands that are meant to fail.
func KubectlErr(t testing.TB, args ...string) (string, error) {
	t.Helper()
	return KubectlStdin(t, "", args...)
}

// KubectlOn is Kubectl against the control plane cp.
func KubectlOn(t testing.TB, cp *controlplane.ControlPlane, args ...string) string {
	t.Helper()
	out, err := kubectl(t, cp, "", args...)
	require.NoError(t, err, "kubectl %s", strings.Join(args, " "))
	return out
}

// KubectlStdin runs kubectl with stdin as its standard input (for "-f -"),
// and returns its standard output and its error, which carries stderr.
func KubectlStdin(t testing.TB, stdin string, args ...string) (string, error) {
	t.Helper()
	return kubectl(t, ControlPlane(t), stdin, args...)
}

// KubectlStdinOn is KubectlStdin against the control plane cp.
func KubectlStdinOn(t testing.TB, cp *controlplane.ControlPlane, stdin string, args ...string) (string, error) {
	t.Helper()
	return kubectl(t, cp, stdin, args...)
}

func kubectl(t testing.TB, cp *controlplane.ControlPlane, stdin string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	full := append([]string{"--kubeconfig", cp.KubeconfigPath, "--cache-dir", t.TempDir()}, args...)
	cmd := exec.CommandContext(ctx, "/usr/bin/kubectl", full...)
	cmd.Stdin = strings.NewReader(stdin)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("testenv: kubectl %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out), nil
}
