package samplecontrollertest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
	sc "github.com/informerlab/informerlab/samplecontroller"
)

// TestInvalidFooSpecIsRefusedByTheSchema: the CRD's schema makes
// kube-apiserver refuse, at create, every spec the controller would report
// as InvalidSpec — negative replicas, more than MaxReplicas, a Deployment
// name that is not a DNS-1123 label — so nothing is stored and nothing
// reaches the controller. The CEL transition rule refuses a change of
// deploymentName once set. The controller's own validation stays for
// servers without this schema (fakeapi checks types only).
// Diagram: none (admission, before step 1). client-go: sample-controller's validation, done by the CRD schema.
func TestInvalidFooSpecIsRefusedByTheSchema(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	runSampleController(t, ns)
	foos := typedClient(t).Resource(sc.FoosGVR).Namespace(ns)
	cases := []struct {
		name, deployment string
		replicas         int
		message          string
	}{
		{"negative", "web", -1, "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0"},
		{"too-many", "web", 101, "spec.replicas: Invalid value: 101: spec.replicas in body should be less than or equal to 100"},
		{"bad-name", "Not_A_DNS_Name", 2, `spec.deploymentName: Invalid value: "Not_A_DNS_Name": spec.deploymentName in body should match`},
	}
	for _, tc := range cases {
		out, err := testenv.KubectlStdin(t, fmt.Sprintf(fooYAML, tc.name, ns, tc.deployment, tc.replicas), "apply", "-f", "-")

		require.Error(t, err, "%s: the schema refuses it: %s", tc.name, out)
		assert.Contains(t, err.Error(), tc.message)
		_, err = foos.Get(t.Context(), tc.name, metav1.GetOptions{})
		assert.True(t, isNotFound(err), "%s: nothing was stored: %v", tc.name, err)
	}

	_, err := testenv.KubectlStdin(t, fmt.Sprintf(fooYAML, "example", ns, "web", 2), "apply", "-f", "-")
	require.NoError(t, err)
	waitFor(t, foos, "example", "the Foo to report 2 available", available(2))
	_, err = testenv.KubectlErr(t, "patch", "foo", "example", "-n", ns, "--type=merge", "-p", `{"spec":{"deploymentName":"api"}}`)

	require.Error(t, err, "the CEL transition rule refuses the change")
	assert.Contains(t, err.Error(), "spec.deploymentName: Invalid value: deploymentName cannot change once set; create a new Foo instead")
	assert.Equal(t, "web", getFoo(t, ns, "example").Spec.DeploymentName)
}
