package grade_test

import (
	"os"
	"testing"

	"github.com/informerlab/informerlab/labs/grade"
)

// A report as a lab's TestGrade prints it: what each behaviour still
// missing expects, then the score, for programs and in words, last.
func ExampleWriteReport() {
	results := []grade.Result{
		{Behaviour: grade.Behaviour{Name: "GetByKeyFindsAddedObject"}, Outcome: grade.Passed},
		{Behaviour: grade.Behaviour{
			Name: "DeleteUnfilesFromIndexes",
			Want: "ByIndex no longer returns a deleted object",
			Doc:  "docs/indexer.md#3-indexes",
		}, Outcome: grade.Failed, Output: []string{"indexer_test.go:40: ByIndex(byApp, web) = [shop/web], want []"}},
		{Behaviour: grade.Behaviour{
			Name: "ReplaceSwapsContents",
			Want: "after Replace the store holds exactly the list",
			Doc:  "docs/indexer.md#2-three-layers",
			Test: func(*testing.T) {},
		}, Outcome: grade.NotStarted},
	}
	grade.WriteReport(os.Stdout, "1-indexer", results)
	// Output:
	// grade: report lab=1-indexer
	// ✗ DeleteUnfilesFromIndexes
	//     indexer_test.go:40: ByIndex(byApp, web) = [shop/web], want []
	//   ✗ DeleteUnfilesFromIndexes — want: ByIndex no longer returns a deleted object (see docs/indexer.md#3-indexes)
	//   · ReplaceSwapsContents — not started; want: after Replace the store holds exactly the list (see docs/indexer.md#2-three-layers)
	// grade: lab=1-indexer passed=1 total=3 notstarted=1
	// 1-indexer: 1 of 3 behaviours pass (1 not started)
}
