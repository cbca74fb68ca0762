package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/splice"
)

func TestOptions(t *testing.T) {
	if _, err := Options("x", nil); err == nil || err.Error() != "x: nil prompt" {
		t.Fatalf("nil prompt: %v", err)
	}
	o, err := Options("x", &chat.Prompt{})
	if err != nil || o == nil || o.Model != "" {
		t.Fatalf("prompt without options: %+v, %v", o, err)
	}
	want := &chat.Options{Model: "m"}
	if o, err := Options("x", &chat.Prompt{Options: want}); err != nil || o != want {
		t.Fatalf("prompt's options: %+v, %v", o, err)
	}
}

func TestCompactObject(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"", "{}", ""},
		{" null ", "{}", ""},
		{"{ \"city\" : \"Paris\" ,\n \"n\": [1, 2] }", `{"city":"Paris","n":[1,2]}`, ""},
		{"[1]", "", "is not a JSON object"},
		{`"text"`, "", "is not a JSON object"},
		{`{"city":`, "", "is not valid JSON"},
	} {
		got, err := CompactObject([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CompactObject(%q) = %q, %v, want an error saying %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CompactObject(%q) = %q, %v, want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestStream(t *testing.T) {
	built := 0
	var sent context.Context
	seq := Stream(context.Background(), func() (string, error) {
		built++
		return "req", nil
	}, func(ctx context.Context, req string, yield func(*chat.Response, error) bool) {
		sent = ctx
		for _, text := range []string{req, "b", "c"} {
			if !yield(&chat.Response{ID: text}, nil) {
				return
			}
		}
	})
	if built != 0 {
		t.Fatal("the request was built before iteration started")
	}
	var got []string
	for r, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r.ID)
		if len(got) == 2 {
			break
		}
	}
	if built != 1 || strings.Join(got, ",") != "req,b" {
		t.Fatalf("built %d times, yielded %q", built, got)
	}
	if sent.Err() == nil {
		t.Error("the send's context is still live after the iteration stopped")
	}

	bad := errors.New("no request")
	var errs []error
	for r, err := range Stream(context.Background(), func() (int, error) { return 0, bad }, func(context.Context, int, func(*chat.Response, error) bool) {
		t.Error("sent a request that could not be built")
	}) {
		if r != nil {
			t.Errorf("response %+v", r)
		}
		errs = append(errs, err)
	}
	if len(errs) != 1 || errs[0] != bad {
		t.Fatalf("errors %v, want the build's one", errs)
	}
}

// TestPromptCall: the prompt's large values are spliced while the request is built and sent, and
// only then; a request that cannot be built is the error, with nothing sent.
func TestPromptCall(t *testing.T) {
	big := strings.Repeat("x", splice.MinBytes)
	p := &chat.Prompt{Messages: []chat.Message{chat.User(big)}}
	var built, sentAs string
	resp, err := PromptCall(context.Background(), p, func() (string, error) {
		built = splice.Text(big)
		return "req", nil
	}, func(ctx context.Context, req string) (*chat.Response, error) {
		sentAs = splice.Text(big)
		return &chat.Response{ID: req}, nil
	})
	if err != nil || resp.ID != "req" {
		t.Fatalf("response %+v, %v", resp, err)
	}
	if built == big || sentAs == big {
		t.Error("the prompt's large text was not registered while the request was built and sent")
	}
	if splice.Text(big) != big {
		t.Error("the prompt's large text is still registered after the call")
	}

	bad := errors.New("no request")
	_, err = PromptCall(context.Background(), p, func() (int, error) { return 0, bad }, func(context.Context, int) (*chat.Response, error) {
		t.Error("sent a request that could not be built")
		return nil, nil
	})
	if err != bad {
		t.Fatalf("error %v, want the build's", err)
	}
}

func TestStreamEnd(t *testing.T) {
	wrap := func(_ context.Context, err error) error { return fmt.Errorf("wrapped: %w", err) }
	incomplete := errors.New("incomplete")
	cut := errors.New("connection reset")
	live := context.Background()
	ended, cancel := context.WithCancel(live)
	cancel()
	for _, tc := range []struct {
		name     string
		ctx      context.Context
		err      error
		complete bool
		want     string
	}{
		{"complete", live, nil, true, ""},
		{"the transport's error", live, cut, false, "wrapped: connection reset"},
		{"an error after the last event", live, cut, true, "wrapped: connection reset"},
		{"stopped early", live, nil, false, "incomplete"},
		{"stopped early as the context ended", ended, nil, false, "wrapped: context canceled"},
		{"complete as the context ended", ended, nil, true, ""},
	} {
		got := ""
		if err := StreamEnd(tc.ctx, tc.err, tc.complete, wrap, incomplete); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestConfigure(t *testing.T) {
	var order []string
	req := &chat.Options{}
	Configure(req, func(o *chat.Options) { order = append(order, "config"); o.Model = "a" }, nil,
		func(o *chat.Options) { order = append(order, "call:"+o.Model); o.Model = "b" })
	if strings.Join(order, ",") != "config,call:a" || req.Model != "b" {
		t.Fatalf("ran %q, model %q", order, req.Model)
	}
}

func TestExtraFunc(t *testing.T) {
	if f, err := ExtraFunc[*chat.Options]("x", nil, "k"); f != nil || err != nil {
		t.Fatalf("without the key: %v, %v", f != nil, err)
	}
	set := func(o *chat.Options) { o.Model = "set" }
	f, err := ExtraFunc[*chat.Options]("x", map[string]any{"k": set}, "k")
	if err != nil || f == nil {
		t.Fatalf("a function of the type wanted: %v", err)
	}
	var o chat.Options
	if f(&o); o.Model != "set" {
		t.Error("the function read is not the one given")
	}
	_, err = ExtraFunc[*chat.Options]("x", map[string]any{"k": func(chat.Options) {}}, "k")
	if want := `x: Extra["k"] must be a func(*chat.Options), not func(chat.Options)`; err == nil || err.Error() != want {
		t.Fatalf("a function of another type: %v, want %q", err, want)
	}
}
