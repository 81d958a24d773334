// Package demotest runs the demo (cmd/demo, built from the main module)
// against a real kube-apiserver and etcd (package controlplane), the way a
// learner without a cluster would:
//
//	cd e2e/controlplane && go run ./cmd/controlplane      # prints KUBECONFIG=...
//	kubectl apply -f samplecontroller/testdata/foo-crd.yaml
//	go run ./cmd/demo --kubeconfig $KUBECONFIG            # from the repository root
//	kubectl apply -f my-foo.yaml
//
// # What is checked
//
// With the Foo CRD installed, the demo runs the sample controller against
// the server; a Foo created with kubectl is narrated through every step of
// the diagram: [1 list&watch], [2 → DeltaFIFO], [3 pop], [4/5 indexer],
// [6 handler], [7 enqueue], [8 get key], [9 lister get], then [reconcile]
// and the controller's [API write]s. Ctrl-C (SIGINT) ends it cleanly. The
// demo runs as a process, with a time limit.
//
// TestMain builds cmd/demo (with -race when the tests run with it), then
// starts one control plane (testenv.Run).
//
// Run with: cd e2e/controlplane && go test -race ./demotest -run Demo -v
package demotest
