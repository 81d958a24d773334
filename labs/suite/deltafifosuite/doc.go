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
// processed; Pop blocks, and Close wakes it.
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
