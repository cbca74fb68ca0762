package client_test

import (
	"context"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

// TestForgedSeqZeroDoesNotReplay: a copy of a stored turn's pending state, resumed after the
// turn was, cannot be resumed again by setting its step to 0: the store would take the claim
// (step 1) as a new turn and the tool would run twice.
func TestForgedSeqZeroDoesNotReplay(t *testing.T) {
	del := fileTool("delete", tool.Metadata{RequiresApproval: true})
	m := chattest.New(chattest.Calls(chattest.Call("delete", `{"path":"/a"}`)), chattest.Text("done")).Repeat()
	store := memory.Turns(memory.NewInMemory())
	c := clienttest.New(t, m, client.WithTools(del), client.WithTurnStore(store))
	resp, err := c.Prompt("go").Param(client.ParamConversationID, "c1").Call(context.Background()).Response()
	if err != nil || resp.Pending == nil {
		t.Fatalf("first: %+v, %v", resp, err)
	}
	copyOf := roundTrip(t, resp.Pending)
	id := resp.Pending.Pending()[0].Call.ID
	if err := c.Resume(resp.Pending, client.Approve(id)).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int64{0, -1, copyOf.Seq} {
		forged := roundTrip(t, copyOf)
		forged.Seq = seq
		err := c.Resume(forged, client.Approve(id)).Call(context.Background()).Err()
		if err == nil {
			t.Errorf("seq %d: a copy of a resumed state resumed again", seq)
		}
	}
	if n := len(del.Args()); n != 1 {
		t.Fatalf("the tool ran %d times", n)
	}
}
