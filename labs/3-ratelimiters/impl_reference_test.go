//go:build labs_reference

package ratelimiterlab

import "github.com/informerlab/informerlab/labs/suite/ratelimitersuite"

// impl is the implementation graded: informerlab's, to prove the lab can
// be solved (go test -tags labs_reference).
var impl = ratelimitersuite.Reference
