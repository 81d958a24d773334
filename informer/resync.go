package informer

import (
	"log/slog"
	"time"
)

// minimumResyncPeriod is the shortest resync period a handler can get:
// anything shorter (but not zero) is raised to it.
//
// client-go: tools/cache.minimumResyncPeriod.
const minimumResyncPeriod = time.Second

// determineResyncPeriod is the period a handler that asked for desired gets
// on an informer whose resync check period is checkPeriod. A resync can only
// happen at a check, so a handler cannot resync more often than the checks
// run, and an informer that never checks (checkPeriod 0) never resyncs
// anyone.
//
// client-go: tools/cache.determineResyncPeriod.
func determineResyncPeriod(logger *slog.Logger, desired, checkPeriod time.Duration) time.Duration {
	switch {
	case desired == 0:
		return 0
	case checkPeriod == 0:
		logger.Warn("informer: the informer has no resync period, so the handler's resync period is ignored",
			"requested", desired)
		return 0
	case desired < checkPeriod:
		logger.Warn("informer: the handler's resync period is shorter than the informer's resync check period; raised to it",
			"requested", desired, "checkPeriod", checkPeriod)
		return checkPeriod
	}
	return desired
}
