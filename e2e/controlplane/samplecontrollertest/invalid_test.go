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

// TestInvalidFooSpecIsRefusedBySchemaOrReportedByController: the CRD's
// schema makes kube-apiserver refuse negative replicas outright. A Deployment
// name the schema accepts (a string) but Kubernetes does not (not a DNS-1123
// subdomain) reaches the controller, which reports Ready=False with reason
// InvalidSpec and a Warning Event InvalidSpec, and creates nothing. Fixing
// the name converges.
// Diagram: step 9. client-go: sample-controller's validation, done by the CRD schema and the controller.
func TestInvalidFooSpecIsRefusedBySchemaOrReportedByController(t *testing.T) {
	testenv.InstallFooCRD(t)
	ns := testenv.Namespace(t)
	runSampleController(t, ns)
	c := typedClient(t)
	foos, deps := c.Resource(sc.FoosGVR).Namespace(ns), c.Resource(sc.DeploymentsGVR).Namespace(ns)

	out, err := testenv.KubectlStdin(t, fmt.Sprintf(fooYAML, "negative", ns, "web", -1), "apply", "-f", "-")
	require.Error(t, err, "the schema's minimum: 0: %s", out)
	assert.Contains(t, err.Error(), "spec.replicas")
	_, err = foos.Get(t.Context(), "negative", metav1.GetOptions{})
	assert.True(t, isNotFound(err), "nothing was stored: %v", err)

	_, err = testenv.KubectlStdin(t, fmt.Sprintf(fooYAML, "example", ns, "Not_A_DNS_Name", 2), "apply", "-f", "-")
	require.NoError(t, err)
	foo := waitFor(t, foos, "example", "Ready=False, InvalidSpec", func(foo *sc.Foo, gone bool) bool {
		ready := readyCondition(foo)
		return !gone && ready != nil && ready.Reason == sc.ReasonInvalidSpec
	})
	var warnings []event
	for _, e := range events(t, ns) {
		if e.InvolvedObject.Name == "example" && e.Reason == "InvalidSpec" {
			warnings = append(warnings, e)
		}
	}
	list, err := deps.List(t.Context(), metav1.ListOptions{})
	require.NoError(t, err)

	assert.Equal(t, metav1.ConditionFalse, readyCondition(foo).Status)
	assert.Contains(t, readyCondition(foo).Message, "spec.deploymentName")
	require.Len(t, warnings, 1)
	assert.Equal(t, "Warning", warnings[0].Type)
	assert.Contains(t, warnings[0].Message, "Not_A_DNS_Name")
	assert.Empty(t, list.(*sc.DeploymentList).Items, "an invalid Foo creates nothing")

	testenv.Kubectl(t, "patch", "foo", "example", "-n", ns, "--type=merge", "-p", `{"spec":{"deploymentName":"web"}}`)
	waitFor(t, foos, "example", "the fixed Foo to report 2 available", available(2))
}
