package testkit

import (
	"io"
	"log/slog"
)

// DebugLogger is a logger writing every record, debug ones included, to w
// as JSON lines: a test reads what a package logged (and checks that no
// secret is in it).
func DebugLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}
