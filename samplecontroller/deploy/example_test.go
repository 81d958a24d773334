package deploy_test

import (
	"fmt"

	"github.com/informerlab/informerlab/samplecontroller/deploy"
)

// Every rule the sample controller is granted, by role.
func Example() {
	for _, manifest := range []string{deploy.RBAC(), deploy.SimulatorRBAC()} {
		rules, err := deploy.Rules(manifest)
		if err != nil {
			panic(err)
		}
		for _, r := range rules {
			fmt.Printf("%-52s %s\n", r.Role, r)
		}
	}
	// Output:
	// ClusterRole/samplecontroller                         foos.samplecontroller.k8s.io [list]
	// ClusterRole/samplecontroller                         foos.samplecontroller.k8s.io [watch]
	// ClusterRole/samplecontroller                         foos.samplecontroller.k8s.io [patch]
	// ClusterRole/samplecontroller                         foos.samplecontroller.k8s.io/status [update]
	// ClusterRole/samplecontroller                         deployments.apps [list]
	// ClusterRole/samplecontroller                         deployments.apps [watch]
	// ClusterRole/samplecontroller                         deployments.apps [create]
	// ClusterRole/samplecontroller                         deployments.apps [patch]
	// ClusterRole/samplecontroller                         deployments.apps [delete]
	// ClusterRole/samplecontroller                         deployments.apps [get]
	// ClusterRole/samplecontroller                         events [create]
	// ClusterRole/samplecontroller                         events [patch]
	// Role/samplecontroller-system/samplecontroller-leases leases.coordination.k8s.io [get]
	// Role/samplecontroller-system/samplecontroller-leases leases.coordination.k8s.io [create]
	// Role/samplecontroller-system/samplecontroller-leases leases.coordination.k8s.io [update]
	// Role/samplecontroller-system/samplecontroller-leases leases.coordination.k8s.io [list]
	// ClusterRole/samplecontroller-deployment-simulator    deployments.apps/status [update]
}
