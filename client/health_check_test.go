package client_test

import (
	"testing"
	"time"

	"github.com/informerlab/informerlab/client"
	"github.com/stretchr/testify/assert"
)

// A negative health-check duration is a mistake, not a way to turn the check
// off: New says so instead of guessing.
// Diagram: none.
func TestNegativeHealthCheckIsRefused(t *testing.T) {
	cfg := &client.Config{Server: "https://127.0.0.1:6443", HealthCheck: client.HealthCheck{PingAfter: -time.Second}}

	_, err := client.New(cfg, nil)

	assert.ErrorContains(t, err, "must not be negative")
}
