package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/cmd/wield/internal/builtin"
)

func chunk(text string) *client.Event {
	return &client.Event{Chunk: &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(text)}}}}
}

func toolEvent(kind client.ToolEventKind, name, args string, result chat.ToolResult, elapsed time.Duration) *client.Event {
	return &client.Event{Tool: &client.ToolEvent{Kind: kind, Call: chat.ToolCall{ID: "c1", Name: name, Arguments: args}, Result: result, Elapsed: elapsed}}
}

// script plays a turn: text, a tool call that fails, more text.
func script(d display) {
	d.waiting()
	d.event(chunk("Let me check."))
	d.event(toolEvent(client.ToolStarted, "setAlarm", `{"time": "soon",
		"label": "tea"}`, chat.ToolResult{}, 0))
	d.event(toolEvent(client.ToolFinished, "setAlarm", `{"time":"soon"}`, chat.ToolResult{Content: "bad time", IsError: true}, 1500*time.Microsecond))
	d.event(chunk("Sorry."))
	d.done(&client.Response{})
	d.close()
}

func TestTextDisplayPlain(t *testing.T) {
	var out, errw bytes.Buffer
	script(newTextDisplay(&out, &errw, textOptions{verbose: true}))
	if out.String() != "Let me check.\nSorry.\n" {
		t.Errorf("stdout %q", out.String())
	}
	want := "tool setAlarm {\"time\":\"soon\",\"label\":\"tea\"}\ntool setAlarm failed after 2ms: bad time\n"
	if errw.String() != want {
		t.Errorf("stderr %q, want %q", errw.String(), want)
	}
}

func TestTextDisplayTerminal(t *testing.T) {
	for _, color := range []bool{false, true} {
		var out, errw bytes.Buffer
		script(newTextDisplay(&out, &errw, textOptions{terminal: true, color: color}))
		if out.String() != "Let me check.\nSorry.\n" {
			t.Errorf("stdout %q", out.String())
		}
		e := errw.String()
		// The spinner waits for the model, then for the tool, and each is erased.
		for _, want := range []string{clearLine + spinnerFrames[0] + " ", "thinking", "setAlarm", "✗", "bad time", "2ms"} {
			if !strings.Contains(e, want) {
				t.Errorf("color %v: stderr lacks %q: %q", color, want, e)
			}
		}
		if hasANSIColor := strings.Contains(e, ansiRed); hasANSIColor != color {
			t.Errorf("color %v: red in stderr: %v", color, hasANSIColor)
		}
		if !strings.HasSuffix(e, clearLine) {
			t.Errorf("the spinner was left on screen: %q", e)
		}
	}
}

func TestColorFollowsNoColor(t *testing.T) {
	for _, tt := range []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, map[string]string{}, true},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"NO_COLOR": ""}, true},
		{true, map[string]string{"TERM": "dumb"}, false},
		{false, map[string]string{}, false},
	} {
		a := &app{stderrTTY: tt.tty, getenv: func(k string) string { return tt.env[k] }}
		if got := a.color(); got != tt.want {
			t.Errorf("tty %v env %v: color %v", tt.tty, tt.env, got)
		}
	}
}

func TestJSONDisplayAlarm(t *testing.T) {
	var out bytes.Buffer
	d := newJSONDisplay(&out)
	d.alarm(builtin.Alarm{At: time.Date(2025, 10, 21, 7, 30, 0, 0, time.UTC), Label: "wake <up>"})
	if got := out.String(); got != `{"type":"alarm","text":"wake <up>","at":"2025-10-21T07:30:00Z"}`+"\n" {
		t.Fatalf("alarm event %s", got)
	}
	var errw bytes.Buffer
	td := newTextDisplay(&out, &errw, textOptions{verbose: true})
	td.alarm(builtin.Alarm{At: time.Date(2025, 10, 21, 7, 30, 0, 0, time.UTC), Label: "tea"})
	if errw.String() != "⏰ tea (7:30AM)\n" {
		t.Fatalf("text alarm %q", errw.String())
	}
}

func TestRoundElapsed(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{14321 * time.Nanosecond, 14 * time.Microsecond},
		{3456 * time.Microsecond, 3 * time.Millisecond},
		{1254 * time.Millisecond, 1250 * time.Millisecond},
	} {
		if got := roundElapsed(tt.in); got != tt.want {
			t.Errorf("roundElapsed(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestShortArgs(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", "{}"},
		{`{ "a" : 1 }`, `{"a":1}`},
		{"not json\n at all", "not json at all"},
		{`{"text":"` + strings.Repeat("x", 100) + `"}`, `{"text":"` + strings.Repeat("x", 70) + "…"},
	} {
		if got := shortArgs(tt.in); got != tt.want {
			t.Errorf("shortArgs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
