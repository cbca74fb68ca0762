package anthropic

import (
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/toolcall"
)

// TestClientLoops runs the recorded tool loops through client.Client, the way applications use
// wield: one Prompt call, the client's tool-calling advisor runs the Go tools and sends the
// results back until the model answers. Every request must mean the same as the recorded one,
// the answer must be the recorded final answer and the usage the sum of the recorded usages.
//
// The loops the client cannot replay as recorded are left to TestReplay: max-iterations (the
// SDK runner stopped with a tool call pending; the client's cap ends with a call without tools)
// and custom-handling (the recorded client took the tool away for the second request).
func TestClientLoops(t *testing.T) {
	skip := map[string]bool{"sdk-tool-runner-max-iterations": true, "sdk-tool-runner-custom-handling": true}
	for _, tc := range replayCases {
		exs := providertest.Load(t, tc.name)
		if len(exs) < 2 || skip[tc.name] {
			continue // no loop to run
		}
		t.Run(tc.name, func(t *testing.T) {
			srv := replay.NewServer(t, exs...)
			resp := clientLoop(t, newTestModel(t, srv.URL, tc.cfg), tc, exs, srv)
			if got := resp.Text(); got != tc.wantText {
				t.Errorf("answer = %q, want %q", got, tc.wantText)
			}
		})
	}
}

// clientLoop sends a recorded conversation through client.Client and checks that every request
// means the same as the recorded one and that the usage is the sum of the recorded usages.
func clientLoop(t *testing.T, m *Model, tc replayCase, exs []replay.Exchange, srv *replay.Server) *client.Response {
	t.Helper()
	opts := tc.opts
	c := clienttest.New(t, m,
		client.WithOptions(&opts),
		client.WithManager(toolcall.New(toolcall.Config{ErrorProcessor: sdkRunnerErrors})))
	spec := c.Prompt(tc.user).Tools(tc.tools())
	if tc.system != "" {
		spec = spec.System(tc.system)
	}
	resp, streamed := providertest.Send(t, spec, tc.stream)
	if tc.stream && streamed == "" {
		t.Error("no text streamed")
	}
	if srv.Served() != len(exs) || resp.ModelCalls != len(exs) {
		t.Fatalf("served %d, model calls %d, recorded %d", srv.Served(), resp.ModelCalls, len(exs))
	}
	var usage chat.Usage
	for i, r := range srv.Requests() {
		checkRequest(t, r.Body, exs[i].RequestBody)
		usage = usage.Add(expectRecorded(t, exs[i]).usage)
	}
	if resp.Usage != usage {
		t.Errorf("usage = %+v, want the recorded sum %+v", resp.Usage, usage)
	}
	return resp
}
