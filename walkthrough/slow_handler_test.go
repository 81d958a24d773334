package walkthrough

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/fakeapi"
	"github.com/informerlab/informerlab/informer"
)

// TestConfusionSlowHandlerBufferGrows registers two handlers on one
// informer. The slow one blocks in its first call until the test lets it
// go; the fast one records. Twenty creates later the fast handler and the
// cache have all twenty objects, and the slow handler's buffer holds the
// nineteen notifications it has not started: nobody waited for it, and
// nothing was dropped. Released, it works through its backlog in order.
// A handler that never returns keeps every later notification in memory.
//
// Diagram: step 6. client-go: sharedProcessor.distribute, processorListener.pop (the unbounded ring buffer).
func TestConfusionSlowHandlerBufferGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t, fakeapi.Options{})
		cms := srv.Resource(cmGVR).Namespace("ns")
		inf := informer.NewSharedIndexInformer(cms, exampleConfigMap(), 0, nil, informer.WithLogger(quiet))
		release := make(chan struct{})
		slow, fast := &recorder{}, &recorder{}
		regs := startInformer(t, inf, informer.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				<-release
				slow.OnAdd(obj, false)
			},
		}, fast)
		slowReg := regs[0]

		var want []string
		for i := range 20 {
			obj := create(t, cms, configMap("ns", fmt.Sprintf("cm-%02d", i), "1"))
			want = append(want, "add ns/"+obj.GetName()+"@"+rvOf(obj))
		}
		synctest.Wait()

		got := fast.takeLines()
		t.Log("1. Twenty ConfigMaps are created; one handler blocks in its first call, the other records")
		t.Logf("   the fast handler has %d notifications, the cache %d objects", len(got), len(inf.GetStore().List()))
		t.Logf("   the slow handler's Backlog() is %d: one notification in progress, the rest waiting in its buffer", slowReg.Backlog())
		assert.Equal(t, want, got, "the fast handler kept up")
		assert.Len(t, inf.GetStore().List(), 20, "so did the cache")
		assert.Equal(t, 19, slowReg.Backlog(), "one notification in progress, nineteen waiting")
		assert.Empty(t, slow.takeLines())

		close(release)
		synctest.Wait()

		got = slow.takeLines()
		t.Logf("2. Released, the slow handler works through its backlog: %d notifications, in order, %s first; Backlog() is %d",
			len(got), firstLine(got), slowReg.Backlog())
		assert.Equal(t, 0, slowReg.Backlog())
		assert.Equal(t, want, got, "every notification, in order")
	})
}

// firstLine returns the first of lines, or "nothing".
func firstLine(lines []string) string {
	if len(lines) == 0 {
		return "nothing"
	}
	return lines[0]
}
