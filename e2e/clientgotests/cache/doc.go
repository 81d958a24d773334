// Package cache maps client-go's tools/cache names onto informerlab's
// packages (indexer, deltafifo, reflector, informer), so that client-go's own
// test files, laid over this directory by the runner one directory up,
// compile and run against informerlab. What it adapts:
//
//   - names: client-go's names are aliases of informerlab's where the shapes
//     agree (Store, Indexer, Delta, ResourceEventHandler, ...);
//   - stop channels: client-go's Run(stopCh) and WaitForCacheSync(stopCh, ...)
//     become a context cancelled when the channel closes;
//   - context-free calls: client-go's ListerWatcher without a context is
//     called from informerlab's context-aware one, the context dropped;
//   - pop functions: client-go's PopProcessFunc takes one object (Deltas
//     for a DeltaFIFO, a Delta for a RealFIFO) where informerlab's takes
//     Deltas; the queues' Pop converts;
//   - options structs: client-go's ...Options structs become informerlab's
//     options; a field informerlab has no use for is accepted and ignored
//     only when it changes nothing the tests check (a Name, a Logger),
//     otherwise it is left out so that a test needing it does not compile
//     and is in the list;
//   - the informers' queue: INFORMERLAB_CLIENTGO_QUEUE (deltafifo, realfifo,
//     atomic) chooses it, so that the same tests run on all three.
//
// client-go's typed tests build its unexported typed adapters by hand, so
// typedResourceEventHandler and typedIndexer are here under those names,
// forwarding to informerlab's UntypedResourceEventHandler and
// NewTypedIndexer (typed.go); ResetInformerNamesForTesting releases the
// InformerNames reserved through this package (identity.go).
//
// Nothing here decides behaviour: every call lands in informerlab. The
// unexported names all start with "shim" so that they never collide with
// the helpers of client-go's test files, which share this package; the
// exceptions are the informer's concrete type, sharedIndexInformer, named as
// client-go's because its tests assert to it, and the unexported names
// client-go's tests call for something informerlab has in public:
// RealFIFO.keyOf (KeyOf, which client-go's Example calls), the test
// helpers RealFIFO.getItems, DeltaFIFO.listKeys and DeltaFIFO.get (the
// queue's contents in order: Queued and ListKeys), whose client-go versions
// read the queues' private fields and are taken out by the list;
// closedMsg, the closed heap's error text, which the heap tests compare
// with; and mutationCache with its field mutationCache, which client-go's
// MutationCache tests assert to and read (mutation.go). The classic FIFO's
// test helpers List, Get and GetByKey are exported, so they need no
// exception.
package cache
