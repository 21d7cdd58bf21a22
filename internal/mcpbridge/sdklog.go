package mcpbridge

import (
	"context"
	"log/slog"
)

// quietInfo is the go-sdk's logger: the SDK logs every MCP session that connects and
// disconnects at info, one pair per agent session, which drowns what parley says at
// --log info. Its info records become debug; warnings and errors stay as they are.
type quietInfo struct{ next slog.Handler }

func sdkLogger(l *slog.Logger) *slog.Logger { return slog.New(quietInfo{l.Handler()}) }

func demote(level slog.Level) slog.Level {
	if level == slog.LevelInfo {
		return slog.LevelDebug
	}
	return level
}

func (q quietInfo) Enabled(ctx context.Context, level slog.Level) bool {
	return q.next.Enabled(ctx, demote(level))
}

func (q quietInfo) Handle(ctx context.Context, r slog.Record) error {
	r.Level = demote(r.Level)
	return q.next.Handle(ctx, r)
}

func (q quietInfo) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quietInfo{q.next.WithAttrs(attrs)}
}

func (q quietInfo) WithGroup(name string) slog.Handler { return quietInfo{q.next.WithGroup(name)} }
