//go:build !labs_reference

package indexerlab

import (
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/suite/indexersuite"
)

// impl is the implementation graded: yours.
var impl = indexersuite.Impl{
	NewIndexer: func(kf indexer.KeyFunc, ix indexer.Indexers) indexersuite.Indexer {
		return NewIndexer(kf, ix)
	},
}
