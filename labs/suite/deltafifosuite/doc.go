// Package deltafifosuite is the graded behaviour of a DeltaFIFO (diagram
// steps 2 and 3): the queue between the Reflector and the informer's
// process loop.
//
// A DeltaFIFO is a line of keys, each holding the history of its object
// since the consumer last popped it. [Behaviours] checks what makes that
// design work: keys keep their place while deltas accumulate; repeated
// deletions collapse and deletions of unknown objects are dropped; a
// relist (Replace) queues every listed object and a tombstone
// (DeletedFinalStateUnknown) for every object it no longer lists, whether
// it was in the consumer's store or still queued; Resync re-delivers idle
// known objects; HasSynced waits until the initial list has been
// processed, and answers without the lock, even inside process; Replace
// is all or nothing and never nests a tombstone; Pop blocks, runs process
// with the queue locked, and after Close still hands out what is queued.
// One behaviour runs a producer, a consumer and a HasSynced poller on real
// goroutines, outside any synctest bubble, so that -race sees them.
//
// The consumer's store is informerlab's indexer.Store, and the queue is
// handed it as a deltafifo.KeyListerGetter, as an informer does. The data
// types (deltafifo.Delta, Deltas, DeletedFinalStateUnknown, ErrFIFOClosed)
// are informerlab's, so a learner's queue and informerlab's are popped by
// the same consumer.
//
// informerlab's DeltaFIFO runs this suite in deltafifo/suite_test.go;
// labs/4-deltafifo grades a learner's queue with it.
package deltafifosuite
