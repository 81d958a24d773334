package indexer

import "fmt"

// TypedIndexFunc is an [IndexFunc] for objects of one type T, such as
// *v1.Pod: it receives a T, so it needs no type assertion of its own. Turn
// it into an IndexFunc with [TypedIndexerFuncToIndexerFunc].
//
// client-go: tools/cache.TypedIndexFunc.
type TypedIndexFunc[T any] func(obj T) ([]string, error)

// TypedIndexers maps an index name to the TypedIndexFunc that computes it:
// [Indexers] for objects of one type. Turn it into Indexers with
// [TypedIndexersToIndexers], for NewIndexer or an informer's indexers.
//
// client-go: tools/cache.TypedIndexers.
type TypedIndexers[T any] map[string]TypedIndexFunc[T]

// TypedIndexersToIndexers returns the untyped Indexers that run each typed
// function of indexers (see [TypedIndexerFuncToIndexerFunc]). A nil function
// stays nil, which the store then refuses as it refuses any nil IndexFunc.
//
// client-go: tools/cache.TypedIndexersToIndexers.
func TypedIndexersToIndexers[T any](indexers TypedIndexers[T]) Indexers {
	untyped := make(Indexers, len(indexers))
	for name, f := range indexers {
		untyped[name] = TypedIndexerFuncToIndexerFunc(f)
	}
	return untyped
}

// TypedIndexerFuncToIndexerFunc returns the IndexFunc that hands each object
// to f as a T. An object of another type is an error, so the store rejects
// the write that brought it and stays as it was; client-go's version
// panics. A nil f gives a nil IndexFunc.
//
// client-go: tools/cache.TypedIndexerFuncToIndexerFunc.
func TypedIndexerFuncToIndexerFunc[T any](f TypedIndexFunc[T]) IndexFunc {
	if f == nil {
		return nil
	}
	return func(obj any) ([]string, error) {
		t, ok := obj.(T)
		if !ok {
			var zero T
			return nil, fmt.Errorf("indexer: an index function for %T got a %T", zero, obj)
		}
		return f(t)
	}
}

// TypedIndexer is an [Indexer] whose cached objects are all of type T, with
// the index queries and AddIndexers in typed form. Its untyped methods are
// still there, so it goes wherever an Indexer goes.
//
// It is the typed index half of an informer's cache: an informer's
// TypedSharedIndexInformer.GetTypedIndexer returns one. For typed Get and
// List by namespace, name and label, a controller reads through
// informer.Lister[T] instead.
//
// client-go: tools/cache.TypedIndexer.
type TypedIndexer[T any] interface {
	Indexer
	// TypedIndex is Index with obj and the results typed.
	TypedIndex(indexName string, obj T) ([]T, error)
	// ByTypedIndex is ByIndex with the results typed.
	ByTypedIndex(indexName, indexedValue string) ([]T, error)
	// AddTypedIndexers is AddIndexers with typed functions.
	AddTypedIndexers(newIndexers TypedIndexers[T]) error
}

// NewTypedIndexer returns the typed view of idx: every call goes to idx,
// and the objects it returns are converted to T. A cached object of another
// type is reported as an error, not a panic as in client-go. idx must not
// be nil.
//
// client-go: none (tools/cache's unexported typedIndexer, which
// TypedSharedIndexInformer.GetTypedIndexer builds).
func NewTypedIndexer[T any](idx Indexer) TypedIndexer[T] {
	return typedIndexer[T]{idx}
}

// typedIndexer is the TypedIndexer over an Indexer.
type typedIndexer[T any] struct {
	Indexer
}

func (i typedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	objs, err := i.Index(indexName, obj)
	if err != nil {
		return nil, err
	}
	return typedAll[T](objs)
}

func (i typedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	objs, err := i.ByIndex(indexName, indexedValue)
	if err != nil {
		return nil, err
	}
	return typedAll[T](objs)
}

func (i typedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return i.AddIndexers(TypedIndexersToIndexers(newIndexers))
}

// typedAll converts the objects of a query to T.
func typedAll[T any](objs []any) ([]T, error) {
	out := make([]T, len(objs))
	for n, obj := range objs {
		t, ok := obj.(T)
		if !ok {
			return nil, fmt.Errorf("indexer: a typed indexer of %T found a %T in the cache", t, obj)
		}
		out[n] = t
	}
	return out, nil
}
