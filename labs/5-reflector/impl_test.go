//go:build !labs_reference

package reflectorlab

import (
	"github.com/informerlab/informerlab/labs/suite/reflectorsuite"
	"github.com/informerlab/informerlab/reflector"
)

// impl is the implementation graded: yours.
var impl = reflectorsuite.Impl{
	New: func(lw reflector.ListerWatcher, store reflector.Store) reflectorsuite.Reflector {
		return New(lw, store)
	},
}
