//go:build clientgotests_deps

// This file is never built. It names the packages client-go's test files
// import, so that go mod tidy keeps them in go.mod and go.sum: the test
// files come from the module cache at run time and are not in the module.

package main

import (
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/stretchr/testify/require"
	_ "go.uber.org/goleak"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/client-go/features/testing"
	_ "k8s.io/client-go/tools/cache/testing"
	_ "k8s.io/client-go/util/consistencydetector"
	_ "k8s.io/client-go/util/watchlist"
	_ "k8s.io/klog/v2/ktesting"
	_ "k8s.io/klog/v2/textlogger"
	_ "k8s.io/utils/clock/testing"
	_ "sigs.k8s.io/randfill"
)
