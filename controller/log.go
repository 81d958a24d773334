package controller

import (
	"context"
	"log/slog"
)

type loggerKey struct{}

// LoggerFrom returns the logger a [Controller] put in ctx: inside Reconcile it
// carries the controller's name and the Request ("controller", "request"
// attributes), in an event handler the controller's name. Without one it
// returns slog.Default().
//
// client-go: controller-runtime pkg/log.FromContext.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// withLogger returns ctx carrying logger for LoggerFrom.
func withLogger(ctx context.Context, logger *slog.Logger) context.Context {
	return context.WithValue(ctx, loggerKey{}, logger)
}
