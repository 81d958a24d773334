package informer

import "github.com/informerlab/informerlab/indexer"

// TypedSharedIndexInformer is a [SharedIndexInformer] whose objects are all
// of type T, with typed ways in: handlers that get a T
// ([TypedResourceEventHandler]) and index functions that take one
// ([indexer.TypedIndexers]). It is the same informer underneath, a thin
// layer that converts at the edge; every untyped method is still there.
//
// It and [Lister] are the two typed views of one informer, for the two
// sides of a controller: the TypedSharedIndexInformer is the write side's
// setup, where handlers and indexes are registered (steps 6 and 5); the
// Lister is the read side, where a worker gets objects by name and label
// (step 9). A controller typically builds both from one informer:
//
//	pods := informer.NewTypedSharedIndexInformer[*v1.Pod](inf)
//	pods.AddTypedEventHandler(handler)
//	lister := informer.NewLister[*v1.Pod](inf.GetIndexer(), podsResource)
//
// It is safe for concurrent use, as the informer it wraps.
//
// client-go: tools/cache.TypedSharedIndexInformer.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer
	// AddTypedEventHandler registers handler as AddEventHandlerWithOptions
	// does, through [UntypedResourceEventHandler]. It takes no options or one
	// HandlerOptions; more than one is an error and registers nothing.
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	// AddTypedIndexers adds indexes as AddIndexers does, through
	// [indexer.TypedIndexersToIndexers]. Its errors are AddIndexers' own.
	AddTypedIndexers(indexers indexer.TypedIndexers[T]) error
	// GetTypedIndexer returns the typed view of GetIndexer (see
	// [indexer.NewTypedIndexer]). Read it, never write it.
	GetTypedIndexer() indexer.TypedIndexer[T]
}

// NewTypedSharedIndexInformer returns the typed view of inf; T must be the
// type of the objects inf caches (the Go type of its example object). It
// starts nothing and adds nothing: Run inf (or the view, which is inf) as
// before. A nil inf is a programming error and panics.
//
// client-go: tools/cache.NewTypedSharedIndexInformer.
func NewTypedSharedIndexInformer[T Object](inf SharedIndexInformer) TypedSharedIndexInformer[T] {
	if inf == nil {
		panic("informer: NewTypedSharedIndexInformer needs an informer")
	}
	return typedInformer[T]{inf}
}

// typedInformer is the TypedSharedIndexInformer over a SharedIndexInformer.
type typedInformer[T Object] struct {
	SharedIndexInformer
}

func (s typedInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	var opts HandlerOptions
	switch len(options) {
	case 0:
	case 1:
		opts = options[0]
	default:
		return nil, errorf("at most one HandlerOptions may be passed, got %d", len(options))
	}
	if handler == nil {
		return nil, errNilHandler
	}
	return s.AddEventHandlerWithOptions(UntypedResourceEventHandler(handler), opts)
}

func (s typedInformer[T]) AddTypedIndexers(indexers indexer.TypedIndexers[T]) error {
	return s.AddIndexers(indexer.TypedIndexersToIndexers(indexers))
}

func (s typedInformer[T]) GetTypedIndexer() indexer.TypedIndexer[T] {
	return indexer.NewTypedIndexer[T](s.GetIndexer())
}
