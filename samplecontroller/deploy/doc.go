// Package deploy holds the manifests that install the sample controller on
// a cluster, as a user applies them with kubectl, and reads them for the
// tests, so that a test grants exactly the rules written here. It stands
// beside the diagram, before step 1: what the controller's informers and
// writes may do at all (docs/admission.md, "2. Authorization").
//
//	rbac.yaml            ServiceAccount samplecontroller-system/samplecontroller
//	                     ClusterRole samplecontroller: foos, foos/status, deployments, events
//	                     Role samplecontroller-leases: the leases of a sharded ring
//	simulator-rbac.yaml  ClusterRole samplecontroller-deployment-simulator (bare API servers only)
//	webhooks.yaml        the Foo admission webhooks (docs/admission.md, steps 3 and 5)
//
// # How it works
//
// The YAML files are the source; [RBAC], [SimulatorRBAC] and [Webhooks]
// return them as embedded in the binary, [Objects] decodes one into
// objects, [Rules] lists the rules of its roles, and [WithoutRule] returns
// it with one rule taken out. The test on the real control plane
// (e2e/controlplane/samplecontrollertest, TestSampleControllerUnderRBAC)
// applies them to a kube-apiserver with --authorization-mode=RBAC, runs
// cmd/samplecontroller with the ServiceAccount's token, and takes each rule
// out in turn to show the failure it causes.
//
// # Guarantees
//
//   - Each rule is one verb on one resource, which the controller uses;
//     none is there for nothing: the test shows a named failure without
//     each.
//   - The functions hold no state and are safe for concurrent use.
//
// # Differences from client-go
//
// sample-controller ships no RBAC. kubebuilder generates a ClusterRole from
// +kubebuilder:rbac markers (config/rbac/role.yaml); here it is written by
// hand and proven by a test instead.
//
// # Read next
//
// Run the Example (go test ./samplecontroller/deploy -run Example -v), then
// docs/admission.md.
package deploy
