package informer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/informerlab/informerlab/reflector"
)

// callLog is a ResourceEventHandler that writes one line per call.
type callLog struct{ calls []string }

func (c *callLog) OnAdd(obj any, initial bool) {
	c.calls = append(c.calls, fmt.Sprintf("add %v initial=%v", obj, initial))
}
func (c *callLog) OnUpdate(oldObj, newObj any) {
	c.calls = append(c.calls, fmt.Sprintf("update %v->%v", oldObj, newObj))
}
func (c *callLog) OnDelete(obj any) { c.calls = append(c.calls, fmt.Sprintf("delete %v", obj)) }

// TestFilteringHandlerTurnsSetChangesIntoAddsAndDeletes walks an update
// through each of the four filter outcomes: an object entering the filtered
// set is an add, one leaving it is a delete.
//
// Diagram: step 6. client-go: FilteringResourceEventHandler.OnUpdate.
func TestFilteringHandlerTurnsSetChangesIntoAddsAndDeletes(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"both accepted", "in-1", "in-2", []string{"update in-1->in-2"}},
		{"enters the set", "out-1", "in-2", []string{"add in-2 initial=false"}},
		{"leaves the set", "in-1", "out-2", []string{"delete in-1"}},
		{"never in the set", "out-1", "out-2", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &callLog{}
			h := FilteringResourceEventHandler{
				FilterFunc: func(obj any) bool { return obj.(string)[:2] == "in" },
				Handler:    log,
			}

			h.OnUpdate(tt.old, tt.new)

			assert.Equal(t, tt.want, log.calls)
		})
	}
}

// TestFilteringHandlerPassesAddsAndDeletesOnlyWhenAccepted checks OnAdd
// (keeping isInInitialList) and OnDelete against the filter, and that a nil
// filter accepts everything.
//
// Diagram: step 6. client-go: FilteringResourceEventHandler.
func TestFilteringHandlerPassesAddsAndDeletesOnlyWhenAccepted(t *testing.T) {
	log := &callLog{}
	h := FilteringResourceEventHandler{
		FilterFunc: func(obj any) bool { return obj.(string)[:2] == "in" },
		Handler:    log,
	}
	all := FilteringResourceEventHandler{Handler: log}

	h.OnAdd("in-a", true)
	h.OnAdd("out-b", true)
	h.OnDelete("in-c")
	h.OnDelete("out-d")
	all.OnAdd("out-e", false)

	assert.Equal(t, []string{"add in-a initial=true", "delete in-c", "add out-e initial=false"}, log.calls)
}

// TestResourceEventHandlerFuncsIgnoresUnsetFunctions calls every method on a
// ResourceEventHandlerFuncs with only UpdateFunc set.
//
// Diagram: step 6. client-go: ResourceEventHandlerFuncs.
func TestResourceEventHandlerFuncsIgnoresUnsetFunctions(t *testing.T) {
	var got []string
	h := ResourceEventHandlerFuncs{UpdateFunc: func(o, n any) { got = append(got, fmt.Sprint(o, "->", n)) }}

	h.OnAdd("a", true)
	h.OnUpdate("a", "b")
	h.OnDelete("b")

	assert.Equal(t, []string{"a->b"}, got)
}

// TestResourceEventHandlerDetailedFuncsPassesIsInInitialList checks that
// AddFunc receives isInInitialList as given, that the other functions are
// called as in ResourceEventHandlerFuncs, and that unset ones are ignored.
//
// Diagram: step 6. client-go: ResourceEventHandlerDetailedFuncs.
func TestResourceEventHandlerDetailedFuncsPassesIsInInitialList(t *testing.T) {
	var got []string
	h := ResourceEventHandlerDetailedFuncs{
		AddFunc:    func(obj any, initial bool) { got = append(got, fmt.Sprintf("add %v initial=%v", obj, initial)) },
		DeleteFunc: func(obj any) { got = append(got, fmt.Sprintf("delete %v", obj)) },
	}

	h.OnAdd("a", true)
	h.OnAdd("b", false)
	h.OnUpdate("a", "c")
	h.OnDelete("b")

	assert.Equal(t, []string{"add a initial=true", "add b initial=false", "delete b"}, got)
}

// TestHandlerAddedWhileRunIsReturningFailsInClientGosWords adds a handler in
// the moment Run is returning: the handlers have been stopped but the
// informer is not yet marked stopped. The error is the one a stopped
// informer gives, worded as client-go's, not the processor's own.
//
// Diagram: step 6. client-go: sharedIndexInformer.AddEventHandlerWithOptions
// (TestSharedInformerHandlerAbuse matches "stopped already").
func TestHandlerAddedWhileRunIsReturningFailsInClientGosWords(t *testing.T) {
	s := NewSharedIndexInformer(reflector.ListWatch{}, nil, 0, nil).(*sharedIndexInformer)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s.processor.run(ctx) // the handlers stop; s.stopped is still false

	_, err := s.AddEventHandler(ResourceEventHandlerFuncs{})

	require.Error(t, err)
	assert.True(t, strings.HasSuffix(err.Error(), "was not added to shared informer because it has stopped already"), err.Error())
}
