package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubectlValidationRefusesAnUnknownField: kubectl's default
// validation, done by the server (fieldValidation=Strict), refuses a
// manifest with a misspelled field, naming it, and stores nothing.
// Diagram: API. client-go: none (kubectl --validate=strict, server-side field validation).
func TestKubectlValidationRefusesAnUnknownField(t *testing.T) {
	p := startFakeapi(t)
	k := newKubectl(t, p)
	manifest := writeManifest(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: typo
datta:
  color: blue
`)

	_, stderr, err := k.run("create", "-f", manifest)

	require.Error(t, err)
	assert.Contains(t, stderr, `Error from server (BadRequest): error when creating`)
	assert.Contains(t, stderr, `strict decoding error: unknown field "datta"`)
	_, getErr, _ := k.run("get", "configmap", "typo")
	assert.Contains(t, getErr, `configmaps "typo" not found`)
}

// TestKubectlApplyTwice runs client-side apply twice: the first apply
// creates the ConfigMap and records the manifest in the
// last-applied-configuration annotation; the second, after the manifest
// changed a value and dropped a key, sends a strategic merge patch computed
// from the annotation, the live object and the manifest, which fakeapi
// applies: the value changes, the dropped key goes, a key added by someone
// else stays, and the annotation records the new manifest.
// Diagram: API. client-go: none (kubectl apply, PATCH application/strategic-merge-patch+json).
func TestKubectlApplyTwice(t *testing.T) {
	p := startFakeapi(t)
	k := newKubectl(t, p)
	cs := newClientset(t, p)
	manifest := writeManifest(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  color: blue
  size: "3"
`)

	first := k.mustRun("apply", "-f", manifest)
	k.mustRun("patch", "configmap", "applied", "--type", "merge", "-p", `{"data":{"theirs":"kept"}}`)
	require.NoError(t, os.WriteFile(manifest, []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: applied
data:
  color: green
`), 0o600))
	second, verbose, err := k.run("apply", "-f", manifest, "-v=8")
	require.NoError(t, err, verbose)

	assert.Equal(t, "configmap/applied created\n", first)
	assert.Equal(t, "configmap/applied configured\n", second)
	assert.Contains(t, verbose, "application/strategic-merge-patch+json", "apply sent a strategic merge patch")
	cm, err := cs.CoreV1().ConfigMaps("default").Get(t.Context(), "applied", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"color": "green", "theirs": "kept"}, cm.Data)
	var lastApplied map[string]any
	require.NoError(t, json.Unmarshal([]byte(cm.Annotations["kubectl.kubernetes.io/last-applied-configuration"]), &lastApplied))
	assert.Equal(t, map[string]any{"color": "green"}, lastApplied["data"])
}

// TestKubectlApplyMergesContainersByName: on a kind kubectl knows
// (Deployment, served with --sample-resources), the second apply's
// strategic merge patch merges the container list by name: the changed
// image is updated in place and the other container is untouched.
// Diagram: API. client-go: none (kubectl apply, patchMergeKey "name").
func TestKubectlApplyMergesContainersByName(t *testing.T) {
	p := startFakeapi(t, "--sample-resources")
	k := newKubectl(t, p)
	deployment := func(image string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: ` + image + `
      - name: sidecar
        image: busybox
`
	}
	manifest := writeManifest(t, deployment("nginx:1"))

	k.mustRun("apply", "-f", manifest)
	require.NoError(t, os.WriteFile(manifest, []byte(deployment("nginx:2")), 0o600))
	k.mustRun("apply", "-f", manifest)
	out := k.mustRun("get", "deployment", "web", "-o", "jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}")

	assert.Equal(t, "nginx=nginx:2 sidecar=busybox ", out)
}

// TestKubectlApplyAndLabelACustomResource: Foo is not a kind kubectl
// knows, so apply and label send merge patches, which work; its fields come
// from its Go type, so validation still catches a misspelled field.
// Diagram: API. client-go: none (kubectl apply on a custom resource, PATCH application/merge-patch+json).
func TestKubectlApplyAndLabelACustomResource(t *testing.T) {
	p := startFakeapi(t, "--sample-resources")
	k := newKubectl(t, p)
	foo := func(replicas, field string) string {
		return `apiVersion: samplecontroller.k8s.io/v1alpha1
kind: Foo
metadata:
  name: example
spec:
  deploymentName: example
  ` + field + `: ` + replicas + "\n"
	}
	manifest := writeManifest(t, foo("1", "replicas"))

	first := k.mustRun("apply", "-f", manifest)
	require.NoError(t, os.WriteFile(manifest, []byte(foo("2", "replicas")), 0o600))
	second := k.mustRun("apply", "-f", manifest)
	labeled := k.mustRun("label", "foo", "example", "tier=gold")
	require.NoError(t, os.WriteFile(manifest, []byte(foo("3", "replicaz")), 0o600))
	_, typoErr, typoExit := k.run("apply", "-f", manifest)

	assert.Equal(t, "foo.samplecontroller.k8s.io/example created\n", first)
	assert.Equal(t, "foo.samplecontroller.k8s.io/example configured\n", second)
	assert.Equal(t, "foo.samplecontroller.k8s.io/example labeled\n", labeled)
	code, body := p.do(t, http.MethodGet, "/apis/samplecontroller.k8s.io/v1alpha1/namespaces/default/foos/example", "", "")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `"replicas":2`)
	assert.Contains(t, body, `"tier":"gold"`)
	require.Error(t, typoExit)
	assert.Contains(t, typoErr, `unknown field "spec.replicaz"`)
}

// TestKubectlExplain reads fakeapi's OpenAPI documents the way kubectl
// explain does: a built-in kind with its descriptions, a nested field, and
// a kind registered from a Go type (Foo).
// Diagram: API. client-go: none (kubectl explain, OpenAPI v3).
func TestKubectlExplain(t *testing.T) {
	p := startFakeapi(t, "--sample-resources")
	k := newKubectl(t, p)

	configMap := k.mustRun("explain", "configmap")
	data := k.mustRun("explain", "configmap.data")
	fooSpec := k.mustRun("explain", "foo.spec")
	_, missingErr, missing := k.run("explain", "configmap.nothing")

	assert.Contains(t, configMap, "KIND:       ConfigMap")
	assert.Contains(t, configMap, "ConfigMap holds configuration data")
	assert.Regexp(t, `data\s+<map\[string\]string>`, configMap)
	assert.Regexp(t, `metadata\s+<ObjectMeta>`, configMap)
	assert.Contains(t, data, "FIELD: data <map[string]string>")
	assert.Contains(t, fooSpec, "GROUP:      samplecontroller.k8s.io")
	assert.Contains(t, fooSpec, "FIELD: spec <FooSpec>")
	assert.Regexp(t, `deploymentName\s+<string> -required-`, fooSpec)
	assert.Regexp(t, `replicas\s+<integer>`, fooSpec)
	require.Error(t, missing)
	assert.Contains(t, missingErr, `field "nothing" does not exist`)
}
