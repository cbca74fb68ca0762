package mcp

import (
	"context"
	"log/slog"
)

// atLeast passes on the records of h from level up: the SDK logs every connection at info level,
// which is noise beside the warnings and errors a server's log is for.
type atLeast struct {
	h     slog.Handler
	level slog.Level
}

func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(atLeast{l.Handler(), slog.LevelWarn})
}

func (a atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= a.level && a.h.Enabled(ctx, l)
}
func (a atLeast) Handle(ctx context.Context, r slog.Record) error { return a.h.Handle(ctx, r) }
func (a atLeast) WithAttrs(attrs []slog.Attr) slog.Handler {
	return atLeast{a.h.WithAttrs(attrs), a.level}
}
func (a atLeast) WithGroup(name string) slog.Handler { return atLeast{a.h.WithGroup(name), a.level} }
