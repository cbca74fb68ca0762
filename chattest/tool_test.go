package chattest_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/tool"
)

var _ tool.Tool = (*chattest.Tool)(nil)

func TestNewTool(t *testing.T) {
	boom := errors.New("boom")
	tl := chattest.NewTool("echo", func(_ context.Context, args string) (string, error) {
		if args == "fail" {
			return "", boom
		}
		return "echo:" + args, nil
	})
	def := tl.Definition()
	if def.Name != "echo" || def.Description != "the echo tool" || !json.Valid(def.InputSchema) || string(def.InputSchema) != `{"type":"object"}` {
		t.Fatalf("definition = %+v (schema %s)", def, def.InputSchema)
	}
	if got, err := tl.Call(context.Background(), `{"a":1}`); got != `echo:{"a":1}` || err != nil {
		t.Fatalf("Call = %q, %v", got, err)
	}
	if _, err := tl.Call(context.Background(), "fail"); !errors.Is(err, boom) {
		t.Fatalf("Call error = %v, want boom", err)
	}
	if got := tl.Args(); !slices.Equal(got, []string{`{"a":1}`, "fail"}) {
		t.Fatalf("Args = %q", got)
	}
	if (tl.Metadata() != tool.Metadata{}) {
		t.Fatalf("metadata = %+v, want zero", tl.Metadata())
	}
	meta := tool.Metadata{ReturnDirect: true, Timeout: time.Second}
	if got := tl.WithMetadata(meta); got != tl || got.Metadata() != meta {
		t.Fatalf("WithMetadata returned %p with %+v", got, got.Metadata())
	}
}

func TestToolFieldsAreWhatItReports(t *testing.T) {
	tl := &chattest.Tool{Def: tool.Definition{Name: "bare"}}
	if got, err := tl.Call(context.Background(), "{}"); got != "bare done" || err != nil {
		t.Fatalf("Call without Func = %q, %v", got, err)
	}
	tl.Def.InputSchema = nil
	tl.Meta.Sequential = true
	if tl.Definition().InputSchema != nil || !tl.Metadata().Sequential {
		t.Fatalf("changes to the fields are not reported: %+v %+v", tl.Definition(), tl.Metadata())
	}
}

// fatalT records a test's fatal failure; Fatalf ends the goroutine as testing.T's does.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// toolResults runs m.ToolResults(i) on a fatalT and returns its results and its failure.
func toolResults(m *chattest.Model, i int) (res []chat.ToolResult, failure string) {
	f := &fatalT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		res = m.ToolResults(f, i)
	}()
	<-done
	return res, f.msg
}

func TestToolResults(t *testing.T) {
	m := chattest.New(chattest.Text("a"), chattest.Text("b"), chattest.Text("c"))
	ctx := context.Background()
	results := []chat.ToolResult{{ID: "1", Name: "weather", Content: "sunny"}, {ID: "2", Name: "time", Content: "noon", IsError: true}}
	for _, p := range []*chat.Prompt{
		prompt("hi"),
		{Messages: []chat.Message{chat.User("hi"), {Role: chat.RoleTool, ToolResults: results}}},
		{},
	} {
		if _, err := m.Call(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if got, failure := toolResults(m, 1); failure != "" || !reflect.DeepEqual(got, results) {
		t.Errorf("ToolResults(1) = %+v, failure %q; want %+v", got, failure, results)
	}
	for i, want := range map[int]string{0: "prompt 0 ends with", 2: "prompt 2 has no messages", 3: "no prompt 3", -1: "no prompt -1"} {
		if got, failure := toolResults(m, i); !strings.HasPrefix(failure, want) || got != nil {
			t.Errorf("ToolResults(%d) = %+v, failure %q; want failure %q", i, got, failure, want)
		}
	}
}

// TestToolArgsConcurrent: calls running at once are all recorded (and, under -race, safely).
func TestToolArgsConcurrent(t *testing.T) {
	tl := chattest.NewTool("count", nil)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			if _, err := tl.Call(context.Background(), strconv.Itoa(i)); err != nil {
				t.Error(err)
			}
			_ = tl.Args()
		})
	}
	wg.Wait()
	got := tl.Args()
	slices.Sort(got)
	want := make([]string, 50)
	for i := range want {
		want[i] = strconv.Itoa(i)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Args = %q", got)
	}
}
