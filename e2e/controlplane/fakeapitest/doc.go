// Package fakeapitest sends one table of raw HTTP requests to a real
// kube-apiserver and to an in-process fakeapi, row by row, and checks that
// both answer alike: the same status code and reason, the same message
// where fakeapi promises the real server's words, the same Warning header.
//
//	one row: method, path, content type, body
//	      |                          |
//	 kube-apiserver v1.37.2      fakeapi.Server.Handler (NamespaceLifecycle on,
//	 + etcd v3.6.16              Secrets and the sample Deployments registered)
//	      |                          |
//	      +------ same answer? ------+
//
// # What is compared
//
//   - A field of the wrong type in a built-in kind (ConfigMap data, a Lease's
//     int32): 400 BadRequest with the decoder's message, on create and
//     update; 422 Invalid when a patch produces it.
//   - ConfigMap and Secret data over 1 MiB: 422 Invalid; exactly 1 MiB is
//     stored; a body over 3 MiB: 413.
//   - A create in a namespace that does not exist (404) or is being deleted
//     (403).
//   - Unknown fields: dropped with a Warning header by default and with
//     fieldValidation=Warn, dropped silently with Ignore, refused with Strict
//     (400; 422 for a patch); an unknown fieldValidation value is 422.
//   - JSON patches: 10,001 operations are 413, 10,000 are applied; 18
//     copies of a ConfigMap's data into itself are 422 with the server's
//     generic message once the copies pass 3 MiB.
//   - Metadata: annotations of exactly 256 KiB are stored, one byte more is
//     422; an annotation key with a space, a finalizer that is not a
//     qualified name or (on a ConfigMap, not a Lease) has no domain, two
//     controller owner references, an owner reference without a uid: 422
//     in apimachinery's words. A Lease with a negative duration: 422.
//   - Deployments, which fakeapi serves with the sample controller's partial
//     Go type: a string for minReadySeconds or for a container port is 400
//     in the decoder's words, a field apps/v1 lacks is refused under Strict,
//     and a well-formed Deployment with fields the partial type lacks is
//     stored.
//   - Forged continue tokens (not base64 JSON, a start key outside the list):
//     400.
//   - timeoutSeconds: negative, or so large that the server's arithmetic
//     wraps around, ends the watch at once with 200 and no event; beyond
//     int64 it is 400.
//   - Shard selectors (ShardedListAndWatch, on in this control plane;
//     shard_test.go): 40 ConfigMaps and 20 Foos, listed and watched as the
//     two halves of the uid hash range; on each server each half holds
//     exactly the objects whose uid hashes into it, ConfigMap lists echo the
//     selector in metadata.shardInfo and Foo lists carry none, and a bad
//     selector (a field path of 251 selections and one of over 100,000
//     characters among them) is a 500 with no reason and the same message,
//     on list and on watch. Then the same again against a second kube-apiserver with the
//     gate off and fakeapi with IgnoreShardSelector: both drop the
//     parameter unread, so every selector, the bad ones included, is a 200
//     with every object and no shardInfo, on list and on watch.
//   - Well-formed requests both accept.
//
// A row where the two may differ says why, in the test and in
// docs/fakeapi.md; every other row must match.
//
// TestMain starts one control plane for the package (testenv.Main).
//
// Run with: cd e2e/controlplane && go test -race -count=1 ./fakeapitest/... -v
package fakeapitest
