//go:build !labs_reference

package informerlab

import (
	"github.com/informerlab/informerlab/labs/suite/informersuite"
	"github.com/informerlab/informerlab/reflector"
)

// impl is the implementation graded: yours.
var impl = informersuite.Impl{
	New: func(lw reflector.ListerWatcher) informersuite.Informer { return New(lw) },
}
