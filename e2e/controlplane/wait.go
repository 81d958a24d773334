package controlplane

import (
	"context"
	"fmt"
	"net"
	"time"
)

// pollInterval is how often a starting process is asked whether it is ready.
const pollInterval = 100 * time.Millisecond

// waitUntil asks ready every pollInterval until it says yes. It gives up with
// an error when p exits first, when timeout has passed, or when ctx is done.
// Each call to ready gets a context bounded by one second.
func waitUntil(ctx context.Context, p *process, timeout time.Duration, ready func(context.Context) bool) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		askCtx, cancel := context.WithTimeout(ctx, time.Second)
		ok := ready(askCtx)
		cancel()
		if ok {
			return nil
		}
		select {
		case <-p.exited():
			return fmt.Errorf("controlplane: %s exited before it was ready: %w", p.name, p.exitError())
		case <-deadline.C:
			return fmt.Errorf("controlplane: %s not ready after %v", p.name, timeout)
		case <-ctx.Done():
			return fmt.Errorf("controlplane: waiting for %s: %w", p.name, ctx.Err())
		case <-tick.C:
		}
	}
}

// freePorts returns n distinct loopback TCP ports that were free a moment ago.
// They are held open together while choosing, so they differ; another process
// may still take one before the child binds it, which the callers handle by
// retrying.
func freePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("controlplane: find a free port: %w", err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
