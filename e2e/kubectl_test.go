package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// kubectlPath is where the machines this project runs on have kubectl.
const kubectlPath = "/usr/bin/kubectl"

// kubectl runs the real kubectl against one fakeapi process, with a cache
// directory of its own so no discovery cached by another test is reused.
type kubectl struct {
	t          *testing.T
	kubeconfig string
	cacheDir   string
}

func newKubectl(t *testing.T, p *fakeapiProcess) *kubectl {
	t.Helper()
	_, err := os.Stat(kubectlPath)
	require.NoError(t, err, errNoKubectl.Error())
	return &kubectl{t: t, kubeconfig: p.Kubeconfig, cacheDir: t.TempDir()}
}

func (k *kubectl) command(ctx context.Context, args ...string) *exec.Cmd {
	base := []string{"--kubeconfig", k.kubeconfig, "--cache-dir", k.cacheDir, "--request-timeout", "20s"}
	return exec.CommandContext(ctx, kubectlPath, append(base, args...)...)
}

// run runs kubectl to completion (within the deadline) and returns its
// stdout, stderr and error (an *exec.ExitError for a non-zero exit).
func (k *kubectl) run(args ...string) (string, string, error) {
	k.t.Helper()
	ctx, cancel := context.WithTimeout(k.t.Context(), deadline)
	defer cancel()
	cmd := k.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(k.t, ctx.Err(), "kubectl %v did not finish in time", args)
	return stdout.String(), stderr.String(), err
}

// mustRun runs kubectl and requires success.
func (k *kubectl) mustRun(args ...string) string {
	k.t.Helper()
	stdout, stderr, err := k.run(args...)
	require.NoError(k.t, err, "kubectl %v\nstdout: %s\nstderr: %s", args, stdout, stderr)
	return stdout
}

// rows returns the first column of each line of kubectl get's table output
// after the header.
func rows(t *testing.T, out string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NotEmpty(t, lines)
	require.Equal(t, []string{"NAME", "DATA", "AGE"}, strings.Fields(lines[0])[:3], "table header of %q", out)
	var names []string
	for _, line := range lines[1:] {
		names = append(names, strings.Fields(line)[0])
	}
	return names
}

func writeManifest(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "manifest.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestKubectlGetListsConfigMapsAsATable creates ConfigMaps through
// client-go and checks that kubectl get shows them with the ConfigMap
// columns (NAME, DATA, AGE) from the server's Table, only in the namespace
// asked for, and that an empty namespace says so.
// Diagram: API. client-go: none (kubectl get, Table output).
func TestKubectlGetListsConfigMapsAsATable(t *testing.T) {
	p := startFakeapi(t)
	cs := newClientset(t, p)
	createConfigMap(t, cs, "default", "alpha", map[string]string{"a": "1", "b": "2"})
	createConfigMap(t, cs, "default", "beta", nil)
	createConfigMap(t, cs, "other", "gamma", nil)
	k := newKubectl(t, p)

	out := k.mustRun("get", "configmaps")
	_, emptyErr, err := k.run("get", "configmaps", "-n", "empty")

	assert.Equal(t, []string{"alpha", "beta"}, rows(t, out))
	assert.Equal(t, []string{"alpha", "2"}, strings.Fields(strings.Split(out, "\n")[1])[:2], "DATA counts the keys")
	require.NoError(t, err)
	assert.Contains(t, emptyErr, "No resources found in empty namespace.")
	assert.Equal(t, []string{"gamma"}, rows(t, k.mustRun("get", "cm", "-n", "other")), "short name cm from discovery")
}

// TestKubectlGetWatchSeesALaterCreate starts kubectl get -w, waits for the
// existing object's row, creates another ConfigMap, and waits for its row
// on kubectl's stdout, read line by line as it arrives.
// Diagram: step 1. client-go: none (kubectl get --watch: list, then watch from the list's resourceVersion).
func TestKubectlGetWatchSeesALaterCreate(t *testing.T) {
	p := startFakeapi(t)
	cs := newClientset(t, p)
	createConfigMap(t, cs, "default", "existing", nil)
	k := newKubectl(t, p)
	ctx, cancel := context.WithTimeout(t.Context(), deadline)
	defer cancel()
	cmd := k.command(ctx, "get", "configmaps", "--watch")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	defer func() {
		cancel() // kills kubectl
		for range lines {
		}
		_ = cmd.Wait()
	}()
	nextRowName := func() string {
		t.Helper()
		for {
			select {
			case line, ok := <-lines:
				require.True(t, ok, "kubectl get -w ended early; stderr: %s", stderr.String())
				if f := strings.Fields(line); len(f) > 0 && f[0] != "NAME" {
					return f[0]
				}
			case <-ctx.Done():
				require.FailNow(t, "no row from kubectl get -w in time", "stderr: %s", stderr.String())
			}
		}
	}
	require.Equal(t, "existing", nextRowName())

	createConfigMap(t, cs, "default", "later", map[string]string{"k": "v"})

	assert.Equal(t, "later", nextRowName())
}

// TestKubectlCreateFromFile creates a ConfigMap from a manifest with
// kubectl create -f, validation on (no --validate=false: kubectl finds
// fieldValidation in fakeapi's OpenAPI documents and leaves validation to
// the server), and checks the server stored it; a second create is
// AlreadyExists.
// Diagram: API. client-go: none (kubectl create -f).
func TestKubectlCreateFromFile(t *testing.T) {
	p := startFakeapi(t)
	k := newKubectl(t, p)
	manifest := writeManifest(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  labels:
    app: demo
data:
  color: blue
  size: "3"
`)

	out := k.mustRun("create", "-f", manifest)
	_, dupErr, dupExit := k.run("create", "-f", manifest)

	assert.Equal(t, "configmap/settings created\n", out)
	cm, err := newClientset(t, p).CoreV1().ConfigMaps("default").Get(t.Context(), "settings", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"color": "blue", "size": "3"}, cm.Data)
	assert.Equal(t, map[string]string{"app": "demo"}, cm.Labels)
	assert.NotEmpty(t, cm.UID)
	require.Error(t, dupExit)
	assert.Contains(t, dupErr, `Error from server (AlreadyExists)`)
	assert.Contains(t, dupErr, `configmaps "settings" already exists`)
}

// TestKubectlLabelUpdatesTheObjectAndSelectors labels a ConfigMap with
// kubectl label (a strategic merge patch), then checks the stored labels,
// that a label selector now finds it, and that relabelling without
// --overwrite is refused while --overwrite works.
// Diagram: API. client-go: none (kubectl label, PATCH application/strategic-merge-patch+json).
func TestKubectlLabelUpdatesTheObjectAndSelectors(t *testing.T) {
	p := startFakeapi(t)
	cs := newClientset(t, p)
	createConfigMap(t, cs, "default", "one", nil)
	createConfigMap(t, cs, "default", "two", nil)
	k := newKubectl(t, p)

	out := k.mustRun("label", "configmap", "one", "tier=gold")
	selected := k.mustRun("get", "configmaps", "-l", "tier=gold")
	_, noOverwrite, err := k.run("label", "configmap", "one", "tier=silver")
	k.mustRun("label", "configmap", "one", "tier=silver", "--overwrite")

	assert.Equal(t, "configmap/one labeled\n", out)
	assert.Equal(t, []string{"one"}, rows(t, selected))
	require.Error(t, err)
	assert.Contains(t, noOverwrite, "already has a value (gold)")
	cm, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), "one", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"tier": "silver"}, cm.Labels)
	assert.Equal(t, []string{"two"}, rows(t, k.mustRun("get", "configmaps", "-l", "tier!=silver")))
}

// TestKubectlDeleteRemovesTheObject deletes a ConfigMap with kubectl
// delete (which then waits for it to be gone) and checks that a later get
// reports NotFound.
// Diagram: API. client-go: none (kubectl delete).
func TestKubectlDeleteRemovesTheObject(t *testing.T) {
	p := startFakeapi(t)
	cs := newClientset(t, p)
	createConfigMap(t, cs, "default", "doomed", nil)
	createConfigMap(t, cs, "default", "kept", nil)
	k := newKubectl(t, p)

	out := k.mustRun("delete", "configmap", "doomed")
	_, getErr, err := k.run("get", "configmap", "doomed")

	assert.Equal(t, "configmap \"doomed\" deleted\n", out)
	require.Error(t, err)
	assert.Contains(t, getErr, `Error from server (NotFound): configmaps "doomed" not found`)
	assert.Equal(t, []string{"kept"}, rows(t, k.mustRun("get", "configmaps")))
}

// TestKubectlGetOutputYAMLShowsTheStoredObject checks kubectl get -o yaml:
// the object as the server stores it, with kind, apiVersion and the
// server-set metadata, equal to what client-go reads.
// Diagram: API. client-go: none (kubectl get -o yaml).
func TestKubectlGetOutputYAMLShowsTheStoredObject(t *testing.T) {
	p := startFakeapi(t)
	cs := newClientset(t, p)
	created := createConfigMap(t, cs, "default", "shown", map[string]string{"greeting": "hello"})
	k := newKubectl(t, p)

	out := k.mustRun("get", "configmap", "shown", "-o", "yaml")

	var got corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(out), &got), "output:\n%s", out)
	assert.Equal(t, "ConfigMap", got.Kind)
	assert.Equal(t, "v1", got.APIVersion)
	assert.Equal(t, "shown", got.Name)
	assert.Equal(t, "default", got.Namespace)
	assert.Equal(t, map[string]string{"greeting": "hello"}, got.Data)
	assert.Equal(t, created.UID, got.UID)
	assert.Equal(t, created.ResourceVersion, got.ResourceVersion)
	assert.WithinDuration(t, time.Now(), got.CreationTimestamp.Time, time.Minute)
}

// TestKubectlSendsTheTokenOverTLS runs fakeapi with --tls and --token:
// kubectl verifies the server against the kubeconfig's
// certificate-authority-data and sends the token, and the same kubeconfig
// with a wrong token is refused as Unauthorized. (kubectl sends no token to
// an http server, which is why --token goes with --tls.)
// Diagram: API. client-go: tools/clientcmd (credentials only over TLS), rest.Config.BearerToken.
func TestKubectlSendsTheTokenOverTLS(t *testing.T) {
	p := startFakeapi(t, "--tls", "--token", "e2e-secret")
	require.True(t, strings.HasPrefix(p.URL, "https://"), p.URL)
	createConfigMap(t, newClientset(t, p), "default", "secured", nil)
	k := newKubectl(t, p)
	data, err := os.ReadFile(p.Kubeconfig)
	require.NoError(t, err)
	wrong := filepath.Join(t.TempDir(), "wrong-token")
	require.NoError(t, os.WriteFile(wrong, bytes.Replace(data, []byte("e2e-secret"), []byte("not-it"), 1), 0o600))

	out := k.mustRun("get", "configmaps")
	_, refused, err := (&kubectl{t: t, kubeconfig: wrong, cacheDir: t.TempDir()}).run("get", "configmaps")

	assert.Equal(t, []string{"secured"}, rows(t, out))
	require.Error(t, err)
	assert.Contains(t, refused, "error: You must be logged in to the server")
}
