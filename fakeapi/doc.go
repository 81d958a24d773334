// Package fakeapi is an in-memory Kubernetes API server: the "Kubernetes
// API" box at the top of the diagram, which step 1 (List & Watch) talks to.
//
//	writes --> next resourceVersion --> commit --+--> storage (one map per resource)
//	                                             +--> history (bounded window)
//	                                             +--> each open watch's bounded queue
//	List  <--  current state, or a past snapshot (history undone back to N)
//	Watch <--  replay of history after N, then the watch's live queue
//
// It serves the same semantics two ways: in-process through
// [Server.Resource], whose [ResourceClient] is a reflector.ListerWatcher, and
// over HTTP in the Kubernetes wire format through [Server.Handler], well
// enough for kubectl and client-go's own informers.
//
// # How it works
//
// Every write takes the server lock, builds a fresh object, stamps it with
// the next value of one global resourceVersion counter (like etcd's
// revision) and commits it: storage changes, the event is appended to a
// bounded history (Options.HistoryLimit events), and every open watch is
// offered the event. Stored objects are never mutated afterwards, so
// history, snapshots and watch queues share them; clients always get deep
// copies.
//
// A write in detail:
//
//  1. Create assigns uid, creationTimestamp and a name from generateName; an
//     existing name is 409 AlreadyExists. On a resource with a status
//     subresource (a spec/status split) it sets generation 1; others, like
//     ConfigMaps on a real server, have no generation.
//  2. Update and Patch check a non-empty resourceVersion against the stored
//     one (409 Conflict). A result equal to the stored object is a no-op: no
//     resourceVersion, no event. generation goes up only when something
//     outside metadata and status changed. On a resource with a status
//     subresource the main endpoint ignores status and /status changes only
//     status.
//  3. Delete of an object with finalizers sets deletionTimestamp (and bumps
//     generation, if it has one, as the real server does); the update removing the last
//     finalizer deletes it, and answers with the object at the
//     resourceVersion it replaced (only the DELETED event carries a new
//     one). Deleting an object runs the garbage collector
//     over objects whose ownerReferences name it (background propagation;
//     Orphan strips the reference instead).
//  4. A JSON patch may have at most 10,000 operations (413), and its copy
//     operations may add at most 3 MiB (422), as on the real server: each
//     copy of a value into itself would double the object (jsonpatch.go).
//
// A list is served from the current state or, for Exact and continue, from a
// past snapshot rebuilt by undoing history; see list.go for the full table.
// A watch starts from a snapshot or a history position (watch_start.go) and
// then receives live events through a bounded queue drained by one goroutine
// per watch (watch.go). A watch whose queue fills up is cut off, never
// blocking writers; it must re-watch, like a client of the real server.
// Lists and watches may ask for a shard: shardSelector, hash ranges of the
// objects' uid or namespace, served as kube-apiserver serves it with the
// ShardedListAndWatch gate on (shard_selector.go); Options.IgnoreShardSelector
// serves it as a server with the gate off does, by ignoring it.
//
// Schemas come from Go types: fakeapi's models of its built-in kinds,
// [ResourceInfo].Object, or Options.Scheme. From them the server publishes
// OpenAPI v3 documents (openapi.go; kubectl validates and explains with
// them), applies strategic merge patches by their merge keys
// (strategic_patch.go), and reads every written object as the real server
// does: a built-in kind is decoded (a field of the wrong JSON type is 400,
// builtin_decode.go), a custom resource checked against its schema (422,
// schema.go), and unknown fields are dropped, with a Warning header unless
// fieldValidation says Ignore, or refused under Strict
// (field_validation.go). ConfigMaps and Secrets hold at most 1 MiB of data
// (builtin_validation.go). A Deployment is decoded as the whole apps/v1
// type, from a description of it (builtin_types.go), whatever Go type
// registered it. A new server holds the namespaces a real cluster
// starts with; with Options.NamespaceLifecycle a create needs a live
// namespace (namespaces.go).
//
// # Fault injection
//
// Each fault is a method, logged through Options.Logger and counted in
// [Server.Faults]; over HTTP the same faults are under /admin/ (see
// docs/fakeapi.md):
//
//   - [Server.CloseWatches]: every open watch ends cleanly. Teaches: the
//     reflector re-watches from its last resourceVersion, no relist.
//   - [Server.Compact]: history is dropped. Teaches: the next re-watch from
//     an old resourceVersion gets 410 Expired and the reflector relists;
//     continue tokens expire too.
//   - [Server.SilentResource]: writes that emit no watch event. Teaches: only
//     a relist reveals them (a silent delete becomes a
//     DeletedFinalStateUnknown tombstone).
//   - [Server.FailNext](verb, n, code): the next n list/watch/get/... calls
//     fail with 410, 429, 500, 503 or 504. Teaches: backoff, and which
//     errors relist versus retry.
//   - [Server.InjectWatchError](status): an ERROR event into every open
//     watch, which then ends. Teaches: the reflector's error taxonomy.
//   - [Server.HangWatches](true): watches stay open but deliver nothing, not
//     even bookmarks or their timeout. Teaches: an informer that silently
//     stops; only a resync or restart notices.
//   - [Server.SetLatency](d): every request waits d first. Teaches: slow
//     servers and context deadlines.
//
// # Guarantees
//
//   - A Server and its ResourceClients are safe for concurrent use.
//   - [New] starts no goroutine; each watch owns one goroutine, which exits
//     when the watch ends; [Server.Close] ends them all and waits.
//   - Writers never block on watchers.
//   - Errors are *apierrors.StatusError values with the real server's codes
//     and reasons, in-process and over HTTP alike; e2e/controlplane/fakeapitest
//     checks them side by side with a real kube-apiserver.
//   - No object of a kind with a Go type (a built-in model, ResourceInfo.Object
//     or the Scheme's) is stored that a typed client of the kind could not
//     decode.
//   - Every HTTP watch ends: at timeoutSeconds (at once if negative), or
//     after 30 to 60 minutes ([MinRequestTimeout]) without it.
//   - [Server.CurrentResourceVersion] is a uint64; objects and lists carry
//     resourceVersions as decimal strings, which clients must treat as
//     opaque.
//
// # Differences from a real kube-apiserver
//
//   - No admission beyond NamespaceLifecycle (and that only with
//     Options.NamespaceLifecycle), no RBAC, defaulting (beyond a Secret's
//     type), server-side apply, dry run, field managers, protobuf or CBOR.
//     Validation covers field types, metadata (apimachinery's rules, with
//     their messages: metadata_validation.go), the ConfigMap and Secret
//     rules (size, keys) and a Lease's durations; enums, patterns, minimums
//     and required fields are not checked, and a schemaless resource accepts
//     anything. A Go type given for a kind of Kubernetes' own groups may be
//     a subset of the real type: its unknown fields are kept, and reported
//     only when a request asks with Warn or Strict. Deployments are the
//     exception: fakeapi reads them by a description of the whole apps/v1
//     type (builtin_types.go), as the real server decodes them.
//   - Deleting a namespace does not delete its contents, and one without
//     finalizers goes at once rather than staying Terminating. Secrets are
//     served only once [SecretResource] is registered.
//   - The garbage collector runs synchronously right after the owner's
//     deletion; Foreground propagation is treated as Background.
//   - A strategic merge patch follows the resource's Go type; a resource
//     without one refuses it (415). A real server refuses it for custom
//     resources only.
//   - A streaming list (sendInitialEvents) from a resourceVersion ahead of
//     the server fails at once (ERROR 504) instead of waiting up to 3 s for
//     the server to catch up. A plain watch from such a version waits, as
//     on the real server.
//
// # Read next
//
// Run the Example (go test ./fakeapi -run Example -v), then read
// docs/fakeapi.md and the reflector package, step 1 of the diagram.
package fakeapi
