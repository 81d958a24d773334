// Command controlplane runs a real Kubernetes API server on this machine,
// kube-apiserver v1.37.2 with etcd v3.6.16, for learners without a cluster:
// the "Kubernetes API" box at the top of the diagram, the real one.
//
//	kubectl / go run ./cmd/demo --kubeconfig ... / the tests
//	        |  https://127.0.0.1:PORT, bearer token
//	        v
//	kube-apiserver ---> etcd      (both children of this process)
//
// # How it works
//
//  1. Flags are parsed; --help says what runs and what does not (no
//     kube-controller-manager) and lists the flags.
//  2. controlplane.Start builds the binaries into the cache the first time
//     (5-10 minutes on two cores; it says so on stderr), then starts etcd and
//     kube-apiserver on free loopback ports and writes a kubeconfig.
//  3. It prints the server, the kubeconfig path, an export KUBECONFIG=...
//     line, a kubectl command and the demo command, then waits.
//  4. On Ctrl-C (SIGINT) or SIGTERM it stops kube-apiserver, then etcd, and
//     removes the temporary directory (not a --dir one).
//
// With --build-only it only builds (or finds) the binaries and prints their
// paths: CI runs that as a step of its own, so the first build never counts
// against go test's time limit.
//
// # Examples
//
//	cd e2e/controlplane && go run ./cmd/controlplane
//	export KUBECONFIG=/tmp/informerlab-controlplane-123/kubeconfig   # as printed
//	kubectl apply -f ../../samplecontroller/testdata/foo-crd.yaml
//	cd ../.. && go run ./cmd/demo --kubeconfig $KUBECONFIG
//
//	go run ./cmd/controlplane --dir /tmp/cp --kubeconfig /tmp/cp.kubeconfig   # keeps etcd's data
//
// # Read next
//
// Package controlplane (e2e/controlplane), then the test packages beside it,
// which run the project's Reflector, informers, sample controller and demo
// against this server: cd e2e/controlplane && go test -race ./...
package main
