package gemini

import (
	"testing"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/memory"
)

// TestClientLoops runs the recorded tool loops through client.Client, the way applications use
// wield: the client's tool-calling advisor runs the Go tools and sends the results back, and a
// memory advisor inside the loop carries the conversation into the next user turn. Every request
// must equal the recorded one and the answer must be the recorded final answer.
func TestClientLoops(t *testing.T) {
	for _, tc := range loopCases {
		if tc.tools == nil {
			continue // text-only cases have no loop
		}
		t.Run(tc.dir, func(t *testing.T) {
			exs, srv, m := tc.serve(t)
			opts := tc.opts
			c := clienttest.New(t, m,
				client.WithOptions(&opts),
				client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(nil, 100), memory.AdvisorConfig{Order: client.OrderToolCalling + 1})))
			tools := tc.tools(t)
			var answer string
			for _, turn := range tc.turns {
				spec := c.Prompt(turn).Tools(tools)
				if tc.system != "" {
					spec = spec.System(tc.system)
				}
				resp, streamed := providertest.Send(t, spec, tc.stream)
				if answer = resp.Text(); tc.stream && streamed == "" {
					t.Fatal("no text streamed")
				}
			}
			if srv.Served() != len(exs) {
				t.Fatalf("served %d of %d exchanges", srv.Served(), len(exs))
			}
			for i, r := range srv.Requests() {
				checkRequest(t, i, r, exs[i], tc.inventedIDs)
			}
			if !tc.final(answer) {
				t.Fatalf("final answer %q is not the recorded one", answer)
			}
		})
	}
}
