package deploy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/informerlab/informerlab/samplecontroller/deploy"
)

// Every manifest decodes into objects with a kind, and the RBAC manifest
// binds each of its roles to the one ServiceAccount it creates.
// Diagram: none. client-go: none (kubectl apply -f reads the same documents).
func TestManifestsDecodeAndBindTheServiceAccount(t *testing.T) {
	var kinds []string
	for _, manifest := range []string{deploy.RBAC(), deploy.SimulatorRBAC(), deploy.Webhooks()} {
		objs, err := deploy.Objects(manifest)
		require.NoError(t, err)
		for _, obj := range objs {
			kinds = append(kinds, obj.GetKind())
			if obj.GetKind() != "ClusterRoleBinding" && obj.GetKind() != "RoleBinding" {
				continue
			}
			subjects, _, err := unstructured.NestedSlice(obj.Object, "subjects")
			require.NoError(t, err)
			assert.Equal(t, []any{map[string]any{"kind": "ServiceAccount", "name": "samplecontroller", "namespace": "samplecontroller-system"}}, subjects, obj.GetName())
		}
	}

	assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding",
		"ClusterRole", "ClusterRoleBinding", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}, kinds)
}

// WithoutRule takes out exactly the rule asked for, from its own role, and
// leaves the manifest it read unchanged; a rule that is not there is an
// error.
// Diagram: none. client-go: none.
func TestWithoutRuleTakesOutOneRule(t *testing.T) {
	rules, err := deploy.Rules(deploy.RBAC())
	require.NoError(t, err)
	require.Greater(t, len(rules), 2)
	victim := rules[1]

	objs, err := deploy.WithoutRule(deploy.RBAC(), victim)
	require.NoError(t, err)

	var left []deploy.Rule
	for _, obj := range objs {
		if obj.GetKind() != "ClusterRole" && obj.GetKind() != "Role" {
			continue
		}
		raw, err := obj.MarshalJSON()
		require.NoError(t, err)
		rs, err := deploy.Rules(string(raw))
		require.NoError(t, err)
		left = append(left, rs...)
	}
	require.Len(t, left, len(rules)-1)
	assert.Equal(t, rules[0].String(), left[0].String())
	assert.Equal(t, rules[2].String(), left[1].String(), "the rule after the victim moves up")
	again, err := deploy.Rules(deploy.RBAC())
	require.NoError(t, err)
	assert.Equal(t, rules, again, "the embedded manifest is not changed")

	_, err = deploy.WithoutRule(deploy.RBAC(), deploy.Rule{Role: "ClusterRole/nobody"})
	assert.ErrorContains(t, err, "deploy: no rule 0 in ClusterRole/nobody")
	_, err = deploy.Objects("just: a map\n")
	assert.ErrorContains(t, err, "deploy: document 1 has no apiVersion or kind")
}
