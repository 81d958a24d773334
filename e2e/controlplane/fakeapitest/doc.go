// Package fakeapitest sends one table of raw HTTP requests to a real
// kube-apiserver and to an in-process fakeapi, row by row, and checks that
// both answer alike: the same status code and reason, the same message
// where fakeapi promises the real server's words, the same Warning header.
//
//	one row: method, path, content type, body
//	      |                          |
//	 kube-apiserver v1.37.2      fakeapi.Server.Handler (NamespaceLifecycle on,
//	 + etcd v3.6.16              Secrets registered)
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
//     selector is a 500 with no reason and the same message, on list and on
//     watch. Then the same again against a second kube-apiserver with the
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
