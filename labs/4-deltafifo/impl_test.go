//go:build !labs_reference

package deltafifolab

import (
	"github.com/informerlab/informerlab/deltafifo"
	"github.com/informerlab/informerlab/indexer"
	"github.com/informerlab/informerlab/labs/suite/deltafifosuite"
)

// impl is the implementation graded: yours.
var impl = deltafifosuite.Impl{
	New: func(kf indexer.KeyFunc, known deltafifo.KeyListerGetter) deltafifosuite.Queue {
		return New(kf, known)
	},
}
