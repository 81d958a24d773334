package cache

import (
	"github.com/informerlab/informerlab/deltafifo"
	"k8s.io/klog/v2"
)

type (
	Delta                    = deltafifo.Delta
	Deltas                   = deltafifo.Deltas
	DeltaType                = deltafifo.DeltaType
	DeletedFinalStateUnknown = deltafifo.DeletedFinalStateUnknown
	KeyListerGetter          = deltafifo.KeyListerGetter
	TransformFunc            = deltafifo.TransformFunc
	ReplacedAllInfo          = deltafifo.ReplacedAllInfo
	SyncAllInfo              = deltafifo.SyncAllInfo
	ProcessBatchFunc         = deltafifo.ProcessBatchFunc
)

const (
	Added       = deltafifo.Added
	Updated     = deltafifo.Updated
	Deleted     = deltafifo.Deleted
	Replaced    = deltafifo.Replaced
	Sync        = deltafifo.Sync
	ReplacedAll = deltafifo.ReplacedAll
	SyncAll     = deltafifo.SyncAll
)

var (
	ErrFIFOClosed                        = deltafifo.ErrFIFOClosed
	ErrZeroLengthDeltasObject            = deltafifo.ErrZeroLengthDeltasObject
	DeletionHandlingMetaNamespaceKeyFunc = deltafifo.DeletionHandlingMetaNamespaceKeyFunc
)

// PopProcessFunc is client-go's: it receives the popped item (a Deltas) as
// an interface{}.
type PopProcessFunc func(obj interface{}, isInInitialList bool) error

// Queue is client-go's queue interface, as far as informerlab's queues have it.
type Queue interface {
	ReflectorStore
	Pop(PopProcessFunc) (interface{}, error)
	HasSynced() bool
	Close()
}

// shimPop calls informerlab's Pop with a client-go PopProcessFunc and
// returns the popped Deltas as client-go does: nil when nothing was popped.
func shimPop(pop func(deltafifo.PopProcessFunc) (Deltas, error), process PopProcessFunc) (interface{}, error) {
	d, err := pop(func(d Deltas, isInInitialList bool) error {
		if process == nil {
			return nil
		}
		return process(d, isInInitialList)
	})
	if d == nil {
		return nil, err
	}
	return d, err
}

// DeltaFIFOOptions is client-go's; EmitDeltaTypeReplaced is accepted and
// ignored, informerlab always emits Replaced.
type DeltaFIFOOptions struct {
	Logger                *klog.Logger
	Name                  string
	KeyFunction           KeyFunc
	KnownObjects          KeyListerGetter
	EmitDeltaTypeReplaced bool
	Transformer           TransformFunc
}

// DeltaFIFO is informerlab's DeltaFIFO with client-go's Pop.
type DeltaFIFO struct {
	*deltafifo.DeltaFIFO
}

func NewDeltaFIFOWithOptions(opts DeltaFIFOOptions) *DeltaFIFO {
	return &DeltaFIFO{deltafifo.New(deltafifo.Options{
		KeyFunction:  opts.KeyFunction,
		KnownObjects: opts.KnownObjects,
		Transformer:  opts.Transformer,
		Logger:       shimSlog(opts.Logger),
	})}
}

func NewDeltaFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter) *DeltaFIFO {
	return NewDeltaFIFOWithOptions(DeltaFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects})
}

func (f *DeltaFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	return shimPop(f.DeltaFIFO.Pop, process)
}

// listKeys is the helper client-go's DeltaFIFO tests define over the private
// queue: the keys in the order Pop takes them, informerlab's public ListKeys.
//
//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (f *DeltaFIFO) listKeys() []string { return f.ListKeys() }

// get is the helper client-go's DeltaFIFO tests define over the private
// items: the deltas queued under obj's key, found in informerlab's public
// Queued.
//
//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (f *DeltaFIFO) get(obj interface{}) (item interface{}, exists bool, err error) {
	key, err := f.KeyOf(obj)
	if err != nil {
		return nil, false, err
	}
	for _, deltas := range f.Queued() {
		if k, _ := f.KeyOf(deltas); k == key {
			return deltas, true, nil
		}
	}
	return nil, false, nil
}

// RealFIFOOptions is client-go's, as far as informerlab's RealFIFO has it.
type RealFIFOOptions struct {
	Logger                *klog.Logger
	Name                  string
	KeyFunction           KeyFunc
	KnownObjects          KeyListerGetter
	Transformer           TransformFunc
	AtomicEvents          bool
	UnlockWhileProcessing bool
}

// RealFIFO is informerlab's RealFIFO with client-go's Pop.
type RealFIFO struct {
	*deltafifo.RealFIFO
}

func NewRealFIFOWithOptions(opts RealFIFOOptions) *RealFIFO {
	return &RealFIFO{deltafifo.NewRealFIFO(deltafifo.Options{
		KeyFunction:           opts.KeyFunction,
		KnownObjects:          opts.KnownObjects,
		Transformer:           opts.Transformer,
		AtomicEvents:          opts.AtomicEvents,
		UnlockWhileProcessing: opts.UnlockWhileProcessing,
		Logger:                shimSlog(opts.Logger),
	})}
}

func NewRealFIFO(keyFunc KeyFunc, knownObjects KeyListerGetter, transformer TransformFunc) *RealFIFO {
	return NewRealFIFOWithOptions(RealFIFOOptions{KeyFunction: keyFunc, KnownObjects: knownObjects, Transformer: transformer})
}

func (f *RealFIFO) Pop(process PopProcessFunc) (interface{}, error) {
	return shimPop(f.RealFIFO.Pop, process)
}

// keyOf is client-go's unexported RealFIFO.keyOf, which its Example calls:
// the RealFIFO's public KeyOf, which unwraps Deltas, a Delta and tombstones.
//
//lint:ignore U1000 called by client-go's Example, laid over this package at run time
func (f *RealFIFO) keyOf(obj interface{}) (string, error) { return f.KeyOf(obj) }

// getItems is the helper client-go's RealFIFO tests define over the private
// items: every queued delta in the order Pop takes them, informerlab's public
// Queued.
//
//lint:ignore U1000 called by client-go's tests, laid over this package at run time
func (f *RealFIFO) getItems() []Delta { return f.Queued() }

func (f *RealFIFO) PopBatch(processBatch ProcessBatchFunc, processSingle PopProcessFunc) error {
	return f.RealFIFO.PopBatch(processBatch, func(d Deltas, isInInitialList bool) error {
		return processSingle(d, isInInitialList)
	})
}

// Bookmark is client-go's delta type for a bookmark a RealFIFO may queue;
// informerlab's queues never queue one, so no delta ever has this type.
const Bookmark DeltaType = "Bookmark"

// Object is client-go's constraint of the typed API.
type Object interface {
	comparable
	GetName() string
	GetNamespace() string
}

type DeletedObject[T Object] = deltafifo.DeletedObject[T]

var DeletionHandlingObjectToName = deltafifo.DeletionHandlingObjectToName
