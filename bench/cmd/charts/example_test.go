package main

import (
	"fmt"
	"strings"
)

// How charts reads a results file: every pass's value of a size, reduced
// to the median, one curve per implementation.
func Example() {
	res, err := parseResults(strings.NewReader(`BenchmarkScaleFanout/handlers=1/impl=ours-2    100  27000 ns/op
BenchmarkScaleFanout/handlers=10/impl=ours-2   100  38000 ns/op
BenchmarkScaleFanout/handlers=1/impl=ours-2    100  29000 ns/op
BenchmarkScaleFanout/handlers=1/impl=ours-2    100  31000 ns/op
`))
	if err != nil {
		panic(err)
	}
	for _, p := range res.curve("BenchmarkScaleFanout", "handlers", "ours", "ns/op") {
		fmt.Printf("%s handlers: %s ns per update\n", compact(p.x), compact(p.y))
	}
	// Output:
	// 1 handlers: 29k ns per update
	// 10 handlers: 38k ns per update
}
