// Package informertest runs the main module's SharedIndexInformer against a
// real kube-apiserver and etcd (package controlplane) while they misbehave as
// real ones do, and checks that it converges.
//
//	writers (several goroutines) --> kube-apiserver --> etcd
//	                                   |    restarted mid-run; etcd compacted
//	                                   | 1 List & Watch
//	   informer: Reflector -> queue -> cache -> handlers fast, slow, late
//
// # What is checked
//
// Thousands of creates, updates and deletes from several goroutines, on two
// resources at once: PodTemplates (no watch cache: a compaction makes the next
// watch from an older resourceVersion fail with 410 Expired) into an informer
// with a DeltaFIFO, ConfigMaps (watch cache) into one with a RealFIFO.
// Mid-run kube-apiserver is stopped and started again on the same port, and
// etcd is compacted, by kube-apiserver every ten seconds and by the test. At
// the end each informer's cache equals the server's list exactly (keys and
// resourceVersions), and so does every handler's own view, built only from
// the notifications it got; no handler ever got an inconsistent notification.
// The test logs the relists, tombstones and events it saw.
//
// Sharded informers (shard_test.go): an informer of ConfigMaps and one of
// Foos cache exactly the low half of the uid hash range; switched to the
// high half, each relists, and its handler is told of every object that left
// (OnDelete) and joined (OnAdd). The same runs on a second control plane with
// ShardedListAndWatch off (testenv.GateOff): the server sends every object,
// the Reflector's client-side re-check keeps the same shares, and the log
// says so once.
//
// TestMain starts one control plane for the package (testenv.Main); the
// gate-off one starts on first use.
//
// Run with: cd e2e/controlplane && go test -race ./informertest -run Converges -v
// and: cd e2e/controlplane && go test -race ./informertest -run TestShardedInformerOnKubeAPIServer -v
package informertest
