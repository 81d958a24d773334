package cache

import (
	"github.com/go-logr/logr"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/informer"
)

type (
	TypedResourceEventHandler[T Object]              = informer.TypedResourceEventHandler[T]
	TypedResourceEventHandlerFuncs[T Object]         = informer.TypedResourceEventHandlerFuncs[T]
	TypedResourceEventHandlerDetailedFuncs[T Object] = informer.TypedResourceEventHandlerDetailedFuncs[T]
	TypedFilteringResourceEventHandler[T Object]     = informer.TypedFilteringResourceEventHandler[T]
	TypedIndexFunc[T any]                            = indexer.TypedIndexFunc[T]
	TypedIndexers[T any]                             = indexer.TypedIndexers[T]
	TypedIndexer[T any]                              = indexer.TypedIndexer[T]
)

func TypedIndexersToIndexers[T any](indexers TypedIndexers[T]) Indexers {
	return indexer.TypedIndexersToIndexers(indexers)
}

func TypedIndexerFuncToIndexerFunc[T any](f TypedIndexFunc[T]) IndexFunc {
	return indexer.TypedIndexerFuncToIndexerFunc(f)
}

// typedResourceEventHandler is client-go's unexported adapter, which its
// tests build by hand: informerlab's UntypedResourceEventHandler.
//
//lint:ignore U1000 built by client-go's tests, laid over this package at run time
type typedResourceEventHandler[T Object] struct {
	handler TypedResourceEventHandler[T]
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (h *typedResourceEventHandler[T]) OnAdd(obj any, isInInitialList bool) {
	informer.UntypedResourceEventHandler(h.handler).OnAdd(obj, isInInitialList)
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (h *typedResourceEventHandler[T]) OnUpdate(oldObj, newObj any) {
	informer.UntypedResourceEventHandler(h.handler).OnUpdate(oldObj, newObj)
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (h *typedResourceEventHandler[T]) OnDelete(obj any) {
	informer.UntypedResourceEventHandler(h.handler).OnDelete(obj)
}

// typedIndexer is client-go's unexported typed indexer, which its tests
// build by hand: informerlab's NewTypedIndexer.
//
//lint:ignore U1000 built by client-go's tests, laid over this package at run time
type typedIndexer[T any] struct {
	Indexer
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (i typedIndexer[T]) TypedIndex(indexName string, obj T) ([]T, error) {
	return indexer.NewTypedIndexer[T](i.Indexer).TypedIndex(indexName, obj)
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (i typedIndexer[T]) ByTypedIndex(indexName, indexedValue string) ([]T, error) {
	return indexer.NewTypedIndexer[T](i.Indexer).ByTypedIndex(indexName, indexedValue)
}

//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (i typedIndexer[T]) AddTypedIndexers(newIndexers TypedIndexers[T]) error {
	return indexer.NewTypedIndexer[T](i.Indexer).AddTypedIndexers(newIndexers)
}

// TypedSharedIndexInformer is client-go's: this package's SharedIndexInformer
// (with client-go's HandlerOptions) and the typed methods.
type TypedSharedIndexInformer[T Object] interface {
	SharedIndexInformer
	AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error)
	AddTypedIndexers(indexers TypedIndexers[T]) error
	GetTypedIndexer() TypedIndexer[T]
}

// NewTypedSharedIndexInformer is informerlab's typed informer over inf: an
// informer of this package lends its informerlab informer; any other (a
// test's fake) is seen through shimLabInformer.
func NewTypedSharedIndexInformer[T Object](inf SharedIndexInformer) TypedSharedIndexInformer[T] {
	var lab informer.SharedIndexInformer = shimLabInformer{inf: inf}
	if s, ok := inf.(*sharedIndexInformer); ok {
		lab = s.SharedIndexInformer
	}
	return shimTypedInformer[T]{SharedIndexInformer: inf, lab: informer.NewTypedSharedIndexInformer[T](lab)}
}

type shimTypedInformer[T Object] struct {
	SharedIndexInformer
	lab informer.TypedSharedIndexInformer[T]
}

func (s shimTypedInformer[T]) AddTypedEventHandler(handler TypedResourceEventHandler[T], options ...HandlerOptions) (ResourceEventHandlerRegistration, error) {
	lab := make([]informer.HandlerOptions, len(options))
	for i, o := range options {
		lab[i] = informer.HandlerOptions{Logger: shimSlog(o.Logger), ResyncPeriod: o.ResyncPeriod}
	}
	return s.lab.AddTypedEventHandler(handler, lab...)
}

func (s shimTypedInformer[T]) AddTypedIndexers(indexers TypedIndexers[T]) error {
	return s.lab.AddTypedIndexers(indexers)
}

func (s shimTypedInformer[T]) GetTypedIndexer() TypedIndexer[T] { return s.lab.GetTypedIndexer() }

// shimLabInformer is informerlab's SharedIndexInformer over a client-go one
// of another package, as far as informerlab's typed informer calls it:
// handlers with options, indexers and the indexer. Anything else is nil.
type shimLabInformer struct {
	informer.SharedIndexInformer
	inf SharedIndexInformer
}

func (s shimLabInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, opts informer.HandlerOptions) (ResourceEventHandlerRegistration, error) {
	o := HandlerOptions{ResyncPeriod: opts.ResyncPeriod}
	if opts.Logger != nil {
		l := logr.FromSlogHandler(opts.Logger.Handler())
		o.Logger = &l
	}
	return s.inf.AddEventHandlerWithOptions(handler, o)
}

func (s shimLabInformer) AddIndexers(indexers Indexers) error { return s.inf.AddIndexers(indexers) }

func (s shimLabInformer) GetIndexer() Indexer { return s.inf.GetIndexer() }
