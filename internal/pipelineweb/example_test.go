package pipelineweb_test

import (
	"fmt"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// A hub orders the pipeline's events, keeps the model of the boxes, and
// hands each page its events through a bounded buffer: this page holds two,
// so it loses the oldest and is told how many. The model shows the
// DeltaFIFO coalescing three deltas under one key.
func Example() {
	model := pipelineweb.NewModel()
	hub := pipelineweb.NewHub(model, pipelineweb.DefaultHistory)
	_, page := hub.Subscribe(2)
	defer page.Close()

	for _, delta := range []string{"Added", "Updated", "Updated"} {
		hub.Publish(pipelineweb.Event{Op: pipelineweb.OpQueued, Tag: pipelineweb.TagFIFO, Arrow: pipelineweb.ArrowAdd,
			Kind: "Foo", Key: "default/web", Deltas: []string{delta}, Text: "Foo default/web: " + delta + " delta queued"})
	}
	events, dropped := page.Next()

	fmt.Println("dropped:", dropped)
	for _, e := range events {
		fmt.Printf("%d [%s] %s\n", e.Seq, e.Tag, e.Text)
	}
	fmt.Println("DeltaFIFO:", model.Snapshot().FIFO)
	// Output:
	// dropped: 1
	// 2 [2 → DeltaFIFO] Foo default/web: Updated delta queued
	// 3 [2 → DeltaFIFO] Foo default/web: Updated delta queued
	// DeltaFIFO: [{Foo default/web [Added Updated Updated]}]
}
