//go:build labs_reference

package reflectorlab

import "github.com/informerlab/informerlab/labs/suite/reflectorsuite"

// impl is the implementation graded: informerlab's, to prove the lab can
// be solved (go test -tags labs_reference).
var impl = reflectorsuite.Reference
