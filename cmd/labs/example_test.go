package main

import "os"

// The progress table, for a learner who finished lab 1, is half-way
// through lab 2 and has not started lab 3.
func Example() {
	writeTable(os.Stdout, []labGrade{
		{lab: "1-indexer", passed: 16, total: 16},
		{lab: "2-workqueue", passed: 9, total: 15, notStarted: 2},
		{lab: "3-ratelimiters", total: 12, notStarted: 12},
	})
	// Output:
	// lab             pass  fail  not started  of                status
	// 1-indexer       16    0     0            16  [##########]  done ✓
	// 2-workqueue     9     4     2            15  [######....]  in progress
	// 3-ratelimiters  0     0     12           12  [..........]  not started
	// all             25                       43  [#####.....]
}
