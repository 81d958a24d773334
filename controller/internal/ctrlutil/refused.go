package ctrlutil

import (
	"log/slog"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RefusedLevel is the level to log a failed API call at: slog.LevelError
// when the server refused the caller — 401 Unauthorized or 403 Forbidden,
// which no retry cures until the credentials or the RBAC rules change, and
// which would otherwise repeat at Info, unseen, while nothing progresses —
// and level otherwise (a Conflict or a timeout is routine and retried).
func RefusedLevel(err error, level slog.Level) slog.Level {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return slog.LevelError
	}
	return level
}
