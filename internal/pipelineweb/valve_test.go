package pipelineweb_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/informerlab/informerlab/internal/pipelineweb"
)

// TestValveSpacingLetsOneThroughPerInterval: with a spacing, passes are
// at least that far apart; without, they are immediate.
// Diagram: step 1. client-go: none (the page's speed).
func TestValveSpacingLetsOneThroughPerInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var v pipelineweb.Valve
		start := time.Now()
		for range 3 {
			assert.NoError(t, v.Pass(context.Background()))
		}
		open := time.Since(start)

		v.SetSpacing(time.Second)
		start = time.Now()
		for range 3 {
			assert.NoError(t, v.Pass(context.Background()))
		}
		spaced := time.Since(start)

		assert.Zero(t, open)
		assert.Equal(t, 2*time.Second, spaced, "the first passes at once, each next a second later")
	})
}

// TestPausedValveReturnsWhenTheContextEnds: a held caller is released by
// its context, with the context's error, and no longer counts as held.
// Diagram: step 1. client-go: none (the page's pause).
func TestPausedValveReturnsWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var v pipelineweb.Valve
		v.Pause()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)

		go func() { errc <- v.Pass(ctx) }()
		synctest.Wait()
		held := v.State().Held
		cancel()
		err := <-errc

		assert.Equal(t, 1, held)
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, v.State().Held)
	})
}

// TestStepOnAnOpenValveIsRefused: Step means something only when paused.
// Diagram: step 1. client-go: none (the page's single step).
func TestStepOnAnOpenValveIsRefused(t *testing.T) {
	var v pipelineweb.Valve

	stepped := v.Step()
	v.Pause()
	steppedPaused := v.Step()

	assert.False(t, stepped)
	assert.True(t, steppedPaused)
	assert.NoError(t, v.Pass(context.Background()), "the granted step lets one through")
}
