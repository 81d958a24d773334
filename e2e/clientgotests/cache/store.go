package cache

import (
	"fmt"

	"github.com/informerlab/informerlab/indexer"
	"k8s.io/apimachinery/pkg/util/sets"
)

type (
	Store            = indexer.Store
	Indexer          = indexer.Indexer
	ThreadSafeStore  = indexer.ThreadSafeStore
	KeyFunc          = indexer.KeyFunc
	KeyError         = indexer.KeyError
	ExplicitKey      = indexer.ExplicitKey
	IndexFunc        = indexer.IndexFunc
	Indexers         = indexer.Indexers
	ObjectName       = indexer.ObjectName
	Transaction      = indexer.Transaction
	TransactionType  = indexer.TransactionType
	TransactionError = indexer.TransactionError
	AppendFunc       = indexer.AppendFunc
	GenericLister    = *indexer.Lister
)

const (
	TransactionTypeAdd    = indexer.TransactionTypeAdd
	TransactionTypeUpdate = indexer.TransactionTypeUpdate
	TransactionTypeDelete = indexer.TransactionTypeDelete
	NamespaceIndex        = indexer.NamespaceIndex
)

var (
	MetaNamespaceKeyFunc   = indexer.MetaNamespaceKeyFunc
	MetaNamespaceIndexFunc = indexer.MetaNamespaceIndexFunc
	SplitMetaNamespaceKey  = indexer.SplitMetaNamespaceKey
	ObjectToName           = indexer.ObjectToName
	NewObjectName          = indexer.NewObjectName
	ParseObjectName        = indexer.ParseObjectName
	ListAll                = indexer.ListAll
	ListAllByNamespace     = indexer.ListAllByNamespace
	NewStore               = indexer.NewStore
	NewIndexer             = indexer.NewIndexer
	NewUndeltaStore        = indexer.NewUndeltaStore
	NewGenericLister       = indexer.NewLister
)

// Indices is client-go's prebuilt index argument of NewThreadSafeStore;
// informerlab builds its indices itself, so only an empty one is accepted.
type Indices map[string]map[string]sets.Set[string]

func NewThreadSafeStore(indexers Indexers, indices Indices) ThreadSafeStore {
	if len(indices) > 0 {
		panic(fmt.Sprintf("cache shim: informerlab builds its own indices, got %d prebuilt", len(indices)))
	}
	return indexer.NewThreadSafeStore(indexers)
}
