package controlplane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a waiting process tries the lock again.
const lockPoll = 500 * time.Millisecond

// lockFile takes an exclusive flock on path, creating the file if needed, and
// returns the function that releases it. If another process holds the lock it
// calls waiting once, then tries again every lockPoll until it gets the lock or
// ctx is done. The kernel drops the lock if the holder dies, so a crashed build
// never blocks the next one.
func lockFile(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("controlplane: lock file: %w", err)
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("controlplane: lock %s: %w", path, err)
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("controlplane: waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(lockPoll):
		}
	}
}
