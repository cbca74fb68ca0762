package tool_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/wield-ai/wield/tool"
)

func TestProgress(t *testing.T) {
	ctx := context.Background()
	if tool.ProgressFrom(ctx) != nil {
		t.Fatal("ProgressFrom of a bare context is not nil")
	}
	tool.ReportProgress(ctx, tool.Progress{Progress: 1}) // no receiver: nothing happens
	if got := tool.WithProgress(ctx, nil); got != ctx {
		t.Fatal("WithProgress(nil) changed the context")
	}

	var got []tool.Progress
	ctx = tool.WithProgress(ctx, func(p tool.Progress) { got = append(got, p) })
	tool.ReportProgress(ctx, tool.Progress{Progress: 1, Total: 2, Message: "half"})
	tool.ReportProgress(ctx, tool.Progress{Progress: 2, Total: 2})
	want := []tool.Progress{{Progress: 1, Total: 2, Message: "half"}, {Progress: 2, Total: 2}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("reports = %v, want %v", got, want)
	}
}

func ExampleReportProgress() {
	ctx := tool.WithProgress(context.Background(), func(p tool.Progress) {
		fmt.Printf("%.0f/%.0f %s\n", p.Progress, p.Total, p.Message)
	})
	// A long-running tool reports as it goes; without a receiver the calls do nothing.
	for step := 1; step <= 3; step++ {
		tool.ReportProgress(ctx, tool.Progress{Progress: float64(step), Total: 3, Message: "indexing"})
	}
	// Output:
	// 1/3 indexing
	// 2/3 indexing
	// 3/3 indexing
}
