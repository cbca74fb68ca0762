package tool

import "context"

// Progress is a running tool's report of how far it has got, for callers that show it (an MCP
// client's progress notifications, a UI's progress bar).
type Progress struct {
	// Progress is the amount done so far. It should grow with every report.
	Progress float64
	// Total is the amount there is to do, or 0 when unknown.
	Total float64
	// Message describes the current step; optional.
	Message string
}

type progressKey struct{}

// WithProgress returns ctx carrying fn, which receives the progress reports of the tool call run
// with ctx. fn may be called from several goroutines at once and should return quickly.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, fn)
}

// ProgressFrom returns the progress receiver ctx carries, or nil when no one listens; a tool can
// use it to skip work done only for reports.
func ProgressFrom(ctx context.Context) func(Progress) {
	fn, _ := ctx.Value(progressKey{}).(func(Progress))
	return fn
}

// ReportProgress sends p to the receiver ctx carries. Without one it does nothing, so tools can
// report progress unconditionally.
func ReportProgress(ctx context.Context, p Progress) {
	if fn := ProgressFrom(ctx); fn != nil {
		fn(p)
	}
}
