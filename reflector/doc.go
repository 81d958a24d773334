// Package reflector keeps a Store in step with one resource of a Kubernetes
// API server: it implements diagram step 1 (List & Watch) and step 2 (add
// each object to the DeltaFIFO, or to any Store).
//
//	Kubernetes API (fakeapi in-process | fakeapi over HTTP | kube-apiserver)
//	      ^
//	      | 1 List & Watch             (ListerWatcher)
//	 Reflector ---- 2 Add Object ----> Store (a DeltaFIFO, or an indexer.Store)
//	                 Replace / Add / Update / Delete / Resync
//
// # How it works
//
// A Reflector is a state machine. Run drives it until its context is
// cancelled; ListAndWatch runs one cycle of it (from a list to the next
// relist). The states, each implemented by one function in its own file:
//
//   - listing (list.go): List the resource — at resourceVersion "0" the first
//     time, at the last seen resourceVersion afterwards, at "" once that one is
//     unavailable — following continue tokens, then Store.Replace(items, rv).
//   - watch-listing (watchlist.go, Options.UseWatchList): get the same initial
//     state as a stream of Added events ended by an initial-events-end
//     bookmark, then Store.Replace, and keep the stream as the watch.
//   - watching (watch.go): Watch from the last seen resourceVersion with
//     bookmarks and a random 5-10 minute timeout; Added, Modified and Deleted
//     events become Store.Add, Update and Delete; a bookmark only moves the
//     resourceVersion on. A second goroutine calls Store.Resync every
//     ResyncPeriod (resync.go).
//   - backing off to re-watch (watch.go, backoff.go): wait, then watch again
//     without relisting.
//   - backing off to relist (Run, backoff.go): ListAndWatch has returned; wait,
//     then list again.
//   - stopped: the context was cancelled; every watch is stopped and every
//     goroutine has exited.
//
// Every transition, and the event that causes it:
//
//	new -> listing                          ListAndWatch starts
//	new -> watch-listing                    ListAndWatch starts with UseWatchList
//	new -> stopped                          context cancelled before the first list
//	listing -> watching                     list succeeded, Store replaced (or, for a
//	                                        shard selector that only widened, the
//	                                        gained objects added: widen.go)
//	listing -> listing                      list at a resourceVersion got 410 Expired or
//	                                        "too large": list again at once, at ""
//	listing -> backing off to relist        list failed, or Store.Replace failed
//	                                        (the error goes to the WatchErrorHandler)
//	listing -> stopped                      context cancelled
//	watch-listing -> watching               initial-events-end bookmark arrived, Store
//	                                        replaced; the same stream goes on
//	watch-listing -> watch-listing          410 Expired or "too large": retry once, at ""
//	watch-listing -> backing off to re-watch   429 Too Many Requests or connection refused
//	watch-listing -> listing                any other failure, a stream that ends or goes
//	                                        idle before the bookmark: fall back to a list
//	watch-listing -> stopped                context cancelled
//	watching -> watching                    the watch ended cleanly (server timeout),
//	                                        nothing arrived for IdleTimeout, or it ended
//	                                        with a 500 within MaxInternalErrorRetryDuration:
//	                                        re-watch at once from the last resourceVersion,
//	                                        no relist
//	watching -> backing off to re-watch     watch refused with 429 or connection
//	                                        refused, or ended with 429
//	watching -> backing off to relist       the watch ended with 410 Expired, any other
//	                                        error (a 500 once the MaxInternalErrorRetryDuration
//	                                        window has passed), closed within 1s with no event
//	                                        ("very short watch"), or a resync failed;
//	                                        or a watch could not be opened for any other
//	                                        reason (that error goes to the WatchErrorHandler);
//	                                        or SetShardSelector or SetLabelSelector changed
//	                                        the selection (Run then relists with no delay;
//	                                        shard.go, label_selector.go)
//	watching -> stopped                     context cancelled
//	backing off to re-watch -> watching     delay elapsed
//	backing off to re-watch -> watch-listing   delay elapsed (streaming list)
//	backing off to re-watch -> stopped      context cancelled
//	backing off to relist -> listing        delay elapsed: relist
//	backing off to relist -> watch-listing  delay elapsed: relist (streaming list)
//	backing off to relist -> stopped        context cancelled
//	stopped -> listing                      ListAndWatch called again with a new context
//	stopped -> watch-listing                the same, with UseWatchList
//	stopped -> stopped                      ListAndWatch called again with a cancelled context
//
// Both backoff states share one jittered exponential Backoff (800ms doubling to
// 30s, reset after two minutes without a retry), so a failing server sees about
// one request per delay from each Reflector.
//
// # Guarantees
//
//   - Store.Replace follows every successful list, with the list's
//     resourceVersion; watch events reach the Store in the order the server sent
//     them, from a single goroutine.
//   - The Reflector never asks for a state older than one it has seen: it
//     relists at its last seen resourceVersion, and falls back to "" (the
//     newest) only when that version is unavailable.
//   - Watch events of the wrong type are logged and skipped, never stored.
//   - Every watch the Reflector opens is stopped before it opens the next one
//     or returns.
//   - Run returns promptly once its context is cancelled, with no goroutine
//     left running. LastSyncResourceVersion is safe to call concurrently.
//   - With Options.MetricsProvider, every list and watch request, relist and
//     watch restart is counted, and the last resourceVersion recorded.
//   - With Options.ShardSelector, the Store holds only the shard's objects,
//     whether or not the server filters (shard.go); SetShardSelector is safe
//     to call concurrently and is followed by a relist with the new selector,
//     or, for a selector that only widens, a list of what it gained alone
//     (widen.go).
//   - With Options.LabelSelector, likewise, the Store holds only objects whose
//     labels match (label_selector.go), an object relabelled out of the
//     selector is deleted, and SetLabelSelector relists the same way.
//
// # Differences from client-go
//
// See docs/reflector.md for the reasons. In short (tools/cache/reflector.go):
//   - IdleTimeout, from kube-rs's watcher: a watch on which nothing at all
//     arrives for three minutes (three missed bookmarks) is re-opened, and so is
//     a watch request whose answer never starts. client-go trusts the connection
//     until the server's watch timeout, and waits for response headers as long.
//   - A streaming list whose stream ends, or goes idle, before the
//     initial-events-end bookmark falls back to a list instead of retrying the
//     stream forever.
//   - MinWatchTimeout is honoured at any value; client-go ignores values below
//     five minutes.
//   - Sharded lists and watches (Options.ShardSelector, SetShardSelector,
//     a widening that lists only what it gained): client-go v0.37.2 has no
//     sharded Reflector.
//   - A label selector is the Reflector's own (Options.LabelSelector,
//     SetLabelSelector), re-checked on the client and changeable while it
//     runs; client-go leaves it to the ListerWatcher, fixed.
//   - No optional Store interfaces (bookmark and resourceVersion updaters), no
//     data consistency detector.
//   - List runs on the calling goroutine: a ListerWatcher must honour its
//     context, so no goroutine is left behind.
//
// # Read next
//
// Run the Example (go test ./reflector -run Example -v), then read
// docs/reflector.md, then the deltafifo package: the Store the informer hands
// to its Reflector.
package reflector
