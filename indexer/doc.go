// Package indexer is the informer's cache: it implements diagram step 4 (the
// informer adds each popped object), step 5 (the object is stored under its
// key and filed in every index) and the read side of step 9 (a worker gets the
// object for a key, through a read-only Lister).
//
//	Informer ---- 4 Add Object ----> Indexer -- 5 Store Object & Key --> ThreadSafeStore
//	  (writes: Add, Update,          (KeyFunc,                            slots:   key -> object
//	   Delete, Replace)               IndexFuncs)                         indexes: name -> value -> slots
//	                                    ^
//	                                    | 9 Get Object for key
//	                                  Lister (read only: Get, List, ByIndex)
//	                                    ^
//	                                  worker -> Reconcile
//
// # How it works
//
// Three layers, one file each, each adding one thing:
//
//  1. [ThreadSafeStore] (thread_safe_store.go) keeps objects by key and the
//     indexes, behind one read-write lock. Each object sits in a numbered
//     slot; an index is a map from an indexed value to the slots filed under
//     it: with the [NamespaceIndex], "shop" -> {slot of "shop/web-1", slot of
//     "shop/db-1"}. Each slot also remembers the values its object was filed
//     under, inline for the usual one or two indexes (filing.go).
//  2. [Store] and [Indexer] (store.go) put a [KeyFunc] in front: Add(obj)
//     computes the key ([MetaNamespaceKeyFunc]: "namespace/name") and hands
//     both to the ThreadSafeStore. NewStore is an Indexer without indexes.
//  3. [Lister] (lister.go) is what controllers get: Get by namespace and name
//     (a missing object is an API NotFound error), List by label selector, and
//     ByIndex. It has no write method, so only the informer changes the cache.
//
// A write (Add, Update, Replace, AddIndexers) runs in two phases under the
// lock: first every [IndexFunc] is computed for the new object; only if all
// succeed does the store change, moving the key from the values it was filed
// under to the new ones and deleting any value left with no keys. Delete
// removes the key from the remembered values and never calls an IndexFunc.
//
// [Store.Transaction] (transaction.go) applies a batch of writes under one
// acquisition of the lock: the informer uses it to apply a whole batch
// popped from an in-order queue at once, so a cache with busy readers is
// locked once per batch, not once per object.
//
// [NewTypedIndexer] (typed.go) is the typed view of an Indexer, for a
// cache whose objects all have one type T: index functions that take a T
// ([TypedIndexers], made untyped by [TypedIndexersToIndexers]) and queries
// that return []T. It converts at the edge and stores nothing of its own.
//
// [NewUndeltaStore] (undelta_store.go) is a Store that pushes its whole
// contents to a function after every write, for a consumer that wants the
// complete set each time rather than the changes. No informer uses it.
//
// Two caches sit beside the informer's and forget on purpose; a controller
// builds them next to its informer:
//
//   - [NewTTLStore] and [NewExpirationStore] (expiration_cache.go,
//     expiration_store.go) return a Store whose entries expire by an
//     [ExpirationPolicy], checked lazily on every read: for expectations
//     that must age out, or a cache of lookups.
//   - [MutationCache] (mutation_cache.go, mutation_events.go,
//     recent_writes.go) is an overlay on the informer's cache that returns a
//     controller's own writes until the informer's cache has caught up with
//     them (compared by resourceVersion): the answer to the stale read after
//     a write, with an LRU and a TTL so it only bridges a watch event's travel.
//
// # Guarantees
//
//   - Every method of ThreadSafeStore, Store, Indexer and Lister is safe for
//     concurrent use. A reader sees a write entirely (object and every index)
//     or not at all.
//   - Add and Update are both upserts; Delete of an absent key is a no-op.
//   - A write whose key or IndexFunc fails returns the error and changes
//     nothing. Replace and AddIndexers are all or nothing. A Transaction is
//     seen whole by readers; a failed write in it is skipped and reported
//     in a [TransactionError] that lists the writes applied.
//   - Index, ByIndex and IndexKeys return an error wrapping [ErrNoSuchIndex] for
//     an unknown index; IndexKeys and ListIndexFuncValues are sorted; List,
//     ListKeys, Index and ByIndex are in no particular order.
//   - No index keeps an empty value set; every key in an index names a stored
//     object filed under that value; every stored object is in every index.
//   - Objects are never copied. Everything returned is the cached object,
//     shared with every reader: never modify it; DeepCopy first.
//   - An expiration store never returns an object whose entry has expired;
//     it reports each expired entry once (WithExpiredFunc), and never removes
//     an entry written after the read that found the old one expired.
//   - A MutationCache returns, for each key, the newer of the backing
//     store's object and the controller's written copy; a written copy is
//     kept at most the TTL, and never wins against an object whose
//     resourceVersion cannot be compared. It is safe for concurrent use.
//
// # Differences from client-go
//
// Mirrors tools/cache/store.go, thread_safe_store.go, index.go and listers.go.
//   - An IndexFunc error is returned, and the write is rejected with the store
//     unchanged. client-go panics, because it has already changed part of the
//     store when the error appears.
//   - Each object remembers the values it was filed under, so Delete never
//     calls an IndexFunc and cannot fail, and an Update still moves an object
//     that a buggy caller changed in place. client-go recomputes the old values
//     from the stored object.
//   - A nil object or a nil IndexFunc is an error on write, not a panic;
//     a nil KeyFunc means MetaNamespaceKeyFunc. GetIndexers returns a copy.
//     ListIndexFuncValues is sorted. ThreadSafeStore's Add, Update and Replace
//     return an error (client-go's return nothing).
//   - Lister returns an error, not a panic, for a cached value that is not a
//     runtime.Object; a nil selector selects everything. Its namespace method is
//     Namespace (client-go's GenericLister calls it ByNamespace). Falling back to
//     a scan when there is no namespace index is silent (client-go logs it).
//   - Transaction is a method of every Store (client-go: a separate
//     TransactionStore interface), returns a plain error (a
//     *TransactionError) and rejects an unknown write type.
//   - Not implemented: transformers (the informer applies them), Replace's
//     resourceVersion tracking.
//   - The typed layer ([TypedIndexer], [TypedIndexers], typed.go) reports
//     an object of the wrong type as an error; client-go's type assertions
//     panic.
//     [LabelIndexFunc] has no client-go counterpart.
//   - NewUndeltaStore returns a Store, not a struct with a PushFunc field,
//     and serializes each write with its push, so pushes arrive in write
//     order and the last one is the current contents; client-go may push
//     the same contents twice, or an older state last. It also pushes once
//     after a Transaction.
//   - The expiration store (client-go: expiration_cache.go) is returned as a
//     Store, decides on an entry without a lock and removes it only if it is
//     still stored (compare and delete), leaves expired entries out of
//     ListKeys, has Transaction, and takes its clock and an expiry report as
//     options (client-go: only through NewFakeExpirationStore).
//   - MutationCache (client-go: mutation_cache.go) is a struct with one
//     constructor taking MutationCacheOptions and no logger. Its Mutation,
//     OnAddOrUpdate and OnDelete return an error for bad input (client-go
//     logs it, or panics on a non-integer resourceVersion). With IncludeAdds,
//     GetByKey keeps returning a created object until the store has it
//     (client-go forgets it after one read); ByIndex files a written copy
//     under its own indexed values. Keys lists what it remembers.
//
// # Read next
//
// Run the Examples (go test ./indexer -run Example -v), then read
// docs/indexer.md. Next along the pipeline: the informer package, which pops
// from the deltafifo package and writes here before it notifies handlers.
package indexer
