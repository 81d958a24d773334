package cache

import (
	"log/slog"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// shimSlog turns a client-go logger into the slog.Logger informerlab takes;
// nil stays nil (informerlab's default).
func shimSlog(l *klog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return shimSlogOf(*l)
}

func shimSlogOf(l logr.Logger) *slog.Logger {
	if l.GetSink() == nil {
		return nil
	}
	return slog.New(logr.ToSlogHandler(l))
}
