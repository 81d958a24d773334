// Package controlplane runs a real Kubernetes API server on this machine:
// kube-apiserver v1.37.2 and etcd v3.6.16, built from source, on loopback. It
// is the real server at the top of the diagram, for tests and for learners
// without a cluster (controller-runtime's envtest does the same with
// downloaded binaries).
//
//	kubectl, client, Reflector, informers, the demo
//	      |  https://127.0.0.1:PORT   (self-signed certificate, bearer token)
//	 kube-apiserver v1.37.2   --authorization-mode=AlwaysAllow (or RBAC)
//	      |  http://127.0.0.1:PORT
//	 etcd v3.6.16             data in a temporary directory
//
// # How it works
//
//  1. [EnsureBinaries] looks for kube-apiserver-v1.37.2 and etcd-v3.6.16 in
//     the cache directory (~/.cache/informerlab/controlplane on Linux). A
//     missing one is built: the embedded go.mod and go.sum of a throwaway
//     module (buildmod/) are written to a temporary directory and go build runs
//     there. The first kube-apiserver build takes minutes; later starts take
//     seconds. A file lock makes concurrent processes build once.
//  2. [Start] makes a self-signed serving certificate for 127.0.0.1 and
//     localhost, a service-account key pair and a random bearer token
//     (crypto/x509, crypto/rand), all written under the control plane's
//     directory.
//  3. It starts etcd on two free loopback ports and waits for /health, then
//     kube-apiserver on a free port and waits for /readyz (about 2-4 seconds).
//     Each runs in its own process group, logging to a file in the directory.
//     [Options.AuthorizationMode] "RBAC" makes it check Roles and bindings
//     as a cluster does; the admin token's user is in system:masters, which
//     RBAC allows everything, and a ServiceAccount's token (TokenRequest)
//     gets only what its bindings grant.
//  4. It writes a kubeconfig: the server URL, the certificate as
//     certificate-authority-data, the token inline. kubectl, client-go and
//     client.LoadKubeconfig all read it.
//  5. [ControlPlane.StopAPIServer] and [ControlPlane.StartAPIServer] stop and
//     restart kube-apiserver on the same port with the same credentials: an
//     outage clients must ride out. [ControlPlane.Compact] compacts etcd now;
//     kube-apiserver also compacts it every [Options.CompactionInterval].
//  6. [ControlPlane.Stop] stops kube-apiserver, then etcd (SIGTERM to the
//     process group, SIGKILL after a grace period) and removes the temporary
//     directory. On Linux the children also die with the parent, so a test
//     binary that is killed leaves no orphans.
//
// The command (cd e2e/controlplane && go run ./cmd/controlplane) does all of
// this and prints the kubeconfig path, an export KUBECONFIG=... line and the
// demo command, then runs until Ctrl-C.
//
// # What a bare control plane does not do
//
// There is no kube-controller-manager and no scheduler. Namespaces never
// finish deleting (nothing empties them), Deployments get no ReplicaSets, Pods
// or status, nothing is garbage-collected through ownerReferences, and
// ServiceAccounts get no token Secrets (kube-apiserver itself still answers
// the TokenRequest API, POST .../serviceaccounts/NAME/token). Tests work in
// fresh namespaces and never wait for one to disappear; where Deployment
// status matters, the sample controller's DeploymentSimulator plays the
// Deployment controller's part.
//
// # Guarantees
//
//   - Neither k8s.io/kubernetes nor etcd enters any go.mod of the project:
//     they are built in a throwaway module. This module is separate from the
//     main module and from e2e/.
//   - A binary appears in the cache only when its build succeeded.
//   - Start either returns a ready control plane or stops what it started.
//   - [ControlPlane] is safe for concurrent use.
//   - UncachedResource (PodTemplates) is served without kube-apiserver's watch
//     cache, so a compaction is visible to its clients as 410 Expired; every
//     other resource is served from the watch cache, as in any cluster.
//
// # Differences from envtest
//
// controller-runtime's pkg/envtest downloads release binaries (setup-envtest)
// and can also install CRDs and webhooks. This package builds the binaries
// from source with the local Go toolchain, so nothing but the Go module proxy
// is needed, and it exposes what the tests here need: restarting
// kube-apiserver on the same port and compacting etcd.
//
// # Read next
//
// Run Example (cd e2e/controlplane && go test -run Example -v .), then the
// test packages: reflectortest (the Reflector and client against the real
// server), informertest (convergence under restarts and compaction),
// samplecontrollertest (the sample controller, kubectl and leader election),
// demotest (the demo narrating a real server) and fakeapitest (fakeapi and
// the real server answering one table of requests side by side).
package controlplane
