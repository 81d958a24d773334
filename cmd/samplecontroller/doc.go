// Command samplecontroller runs the sample controller of package
// samplecontroller as a process of its own, against any API server: a
// kube-apiserver through a kubeconfig, or a fakeapi by URL. Started several
// times with one --ring, its processes are the replicas of a sharded ring:
// each caches and reconciles only the Foos of the buckets whose Lease it
// holds, and when one dies the others take its buckets.
//
//	samplecontroller --ring foos --identity a ---+
//	samplecontroller --ring foos --identity b ---+--> API server: Foos and Deployments
//	samplecontroller --ring foos --identity c ---+    (each replica's share, by shard selector)
//	                                                  Leases: foos-member-a, foos-bucket-0..15
//
// # How it works
//
//  1. Flags are parsed; --help describes every flag. Exactly one of
//     --kubeconfig (client.LoadKubeconfig: server, certificate authority,
//     token or client certificate of the current context) and --server (a
//     URL, no credentials) says where the API server is.
//  2. A client is built from that config, with a Config.WrapTransport that
//     counts the bytes of every response body by resource (foos,
//     deployments, leases, other): what this replica receives.
//  3. samplecontroller.New wires the Foo controller (and with
//     --simulate-deployments the DeploymentSimulator, which stands in for
//     kube-controller-manager). With --ring, Options.Shard makes it a
//     replica: a sharding.Member renews its member Lease, takes and
//     releases bucket Leases as the ring moves them,
//     widens the Foo informer's shard selector as it gains buckets, and a
//     guard runs a Foo's Reconcile only while its bucket is held and was
//     confirmed within --renew-deadline.
//  4. It runs until SIGINT or SIGTERM, then stops gracefully: the member
//     stops admitting its buckets' Foos, waits for their reconciles to end
//     and releases its Leases, so the other replicas take them at once. A
//     replica killed with SIGKILL releases nothing: its buckets move after
//     --lease-duration.
//
// Two files show what a replica does, for a test or a benchmark to read:
//
//   - --journal FILE: one JSON line per Foo reconcile, appended as it ends:
//     {"replica","key","start","end","ok","writes"}, times in Unix
//     nanoseconds, writes the API writes that succeeded during it. The
//     journals of all replicas, merged, show whether two replicas ever
//     reconciled one key at once (they must not), and when a dead replica's
//     Foos were picked up.
//   - --stats FILE: a JSON snapshot rewritten every 250 ms, atomically
//     (a temporary file renamed over it): identity, held buckets, the sizes
//     of the Foo and Deployment caches, whether it leads (with
//     --leader-elect; always true otherwise), bytes received by resource, and
//     heapLiveBytes, the heap the last garbage collection found reachable
//     (runtime/metrics /gc/heap/live:bytes; a collection is forced when the
//     last is two seconds old, so the figure is never staler than that).
//
// Exit status: 0 after a graceful stop or --help, 1 when the controller
// cannot start or fails (a --ring replica that cannot take its member Lease
// within twice --lease-duration plus --retry-period, warning each round,
// gives up), 2 for a bad command line.
//
// # Examples
//
// Three replicas against a fakeapi (which, like a bare kube-apiserver, has
// no Deployment controller):
//
//	go run ./cmd/fakeapi --sample-resources &
//	go run ./cmd/samplecontroller --server http://127.0.0.1:8080 --simulate-deployments --ring foos --identity a --stats /tmp/a.json &
//	go run ./cmd/samplecontroller --server http://127.0.0.1:8080 --simulate-deployments --ring foos --identity b --stats /tmp/b.json &
//	go run ./cmd/samplecontroller --server http://127.0.0.1:8080 --simulate-deployments --ring foos --identity c --stats /tmp/c.json &
//	cat /tmp/a.json
//
// # Differences from client-go
//
// sample-controller's main.go runs one replica. With --leader-elect this
// one runs as controller-runtime's managers do, one leading and the others
// standing by (--warmup: with their sources started too); with --ring every
// replica works, on its share (--warm-buckets: caching too the buckets it
// would gain if another replica died).
//
// # Read next
//
// docs/sharding.md, "Replicas as processes", and the package
// samplecontroller's "Running sharded"; e2e/controlplane/samplecontrollertest
// kills and pauses these processes against a real kube-apiserver.
package main
