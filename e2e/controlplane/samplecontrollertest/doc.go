// Package samplecontrollertest runs the main module's sample controller and
// Manager against a real kube-apiserver and etcd (package controlplane),
// driven with the real kubectl.
//
//	kubectl apply -f samplecontroller/testdata/foo-crd.yaml, then Foos
//	      |
//	 kube-apiserver (CRD validation and defaulting, status subresource, Events, Leases)
//	      |  1 List & Watch, writes
//	 SampleController: Foo controller + DeploymentSimulator (no kube-controller-manager here)
//
// # What is checked
//
//   - The CRD installs (it needs the api-approved.kubernetes.io annotation)
//     and its schema rejects what it declares invalid.
//   - A Foo created with kubectl gets the finalizer and a Deployment with a
//     controller owner reference to it; its status, written through the
//     status subresource, reaches the Deployment's available replicas (the
//     DeploymentSimulator plays the Deployment controller); kubectl shows the
//     printer columns and the Normal Event Synced.
//   - A status sent with an ordinary update is ignored by the server: only
//     the status subresource writes status.
//   - Scaling the Foo scales the Deployment.
//   - The CRD's schema refuses every spec the controller would call
//     invalid (negative or too many replicas, a Deployment name that is not
//     a DNS-1123 label) and its CEL rule refuses a change of deploymentName;
//     nothing reaches the controller. (Against fakeapi, which checks types
//     only, the controller's InvalidSpec condition is what catches them.)
//   - Admission webhooks served by the sample controller's Manager: a Foo
//     without replicas is stored with the default, a Foo that names another
//     Foo's Deployment is refused with the webhook's message, and the failure
//     policy decides what happens while the Manager is down. The
//     configurations are samplecontroller/deploy/webhooks.yaml's.
//   - Webhook client authentication, on a kube-apiserver of the test's own
//     (testenv.StartControlPlane) given a client certificate by
//     --admission-control-config-file: the webhook server, with
//     ClientCAFile, answers it, and refuses at the TLS handshake a caller
//     without a certificate, one with another CA's, and the shared
//     kube-apiserver, which presents none.
//   - RBAC, on a kube-apiserver with --authorization-mode=RBAC:
//     cmd/samplecontroller, as the ServiceAccount of
//     samplecontroller/deploy/rbac.yaml with a TokenRequest token, works
//     alone and as a ring of three with exactly those rules; without any
//     one rule, it logs the refusal naming that verb and resource, at WARN
//     or ERROR.
//   - Deleting the Foo: the finalizer's cleanup deletes the Deployment before
//     the Foo goes. Nothing else would: a bare control plane has no garbage
//     collector to follow the owner reference.
//   - Leader election on a real Lease: of two Managers, one reconciles; when
//     it stops, the other takes over, and the two never run at once.
//   - Sharding with the ShardedListAndWatch gate on: three sharded sample
//     controllers each cache exactly their buckets' Foos and, by the bucket
//     label, their Deployments; one is killed, and the test logs how long
//     the survivors take to reconcile its Foos (p50 and max of three runs).
//     The same runs on a second control plane with the gate off
//     (testenv.GateOff), where the server sends every Foo and the
//     client-side re-check gives the same caches.
//   - Scaling a ring 3 → 4 → 3 (shard_scale_test.go), on both planes: only
//     the buckets whose ring owner changes move, each Lease straight from
//     its old holder to its new one; the fourth's graceful leave hands its
//     buckets back within a Lease duration; no two replicas reconcile one
//     Foo at once. The test logs how long each move took.
//   - The same ring as processes (cmd/samplecontroller, built once per
//     test), on both control planes, the gate on and off: every bucket held
//     once and each replica caching its buckets' Foos, read from their
//     --stats files; a replica SIGKILLed and its Foos reconciled by the
//     survivors within LeaseDuration + RenewDeadline + 5 s, with no two
//     replicas ever on one key (their --journal files); a replica SIGSTOPped
//     past its Lease making no write until it holds a bucket again; and the
//     Foo bytes and heap of each replica of three against a ring of one and
//     an empty replica. BenchmarkShardedReplicas reports the same figures at
//     any scale (-shard.foos, -shard.kills).
//
// TestMain starts one control plane for the package (testenv.Main); each test
// works in its own namespace.
//
// Run with: cd e2e/controlplane && go test -race ./samplecontrollertest -run 'Foo|Leader|Admission|Sharded|RBAC' -v
// (the process tests alone: -run 'Process|Paused|Receive')
package samplecontrollertest
