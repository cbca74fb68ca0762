package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolcall"
)

// TestOneCallStatus: a saved call's status is the Manager's own, and the JSON of a saved state
// holds its word, as it did when the client had a status type of its own; the deprecated names
// are the same values.
func TestOneCallStatus(t *testing.T) {
	for s, word := range map[toolcall.CallStatus]string{
		toolcall.CallDone: "done", toolcall.CallApproval: "approval", toolcall.CallInterrupted: "interrupted",
		toolcall.CallWaiting: "waiting", toolcall.CallRunning: "running",
	} {
		b, err := json.Marshal(client.PendingCall{Status: s})
		if err != nil || !strings.Contains(string(b), `"status":"`+word+`"`) {
			t.Errorf("%v: %s, %v", s, b, err)
		}
		var back client.PendingCall
		if err := json.Unmarshal(b, &back); err != nil || back.Status != s || s.String() != word {
			t.Errorf("%s read back as %v, %v", b, back.Status, err)
		}
	}
	var old client.CallStatus = client.CallApproval
	if old != toolcall.CallApproval || toolcall.CallNeedsApproval != toolcall.CallApproval || client.CallRunning != toolcall.CallRunning {
		t.Fatal("the deprecated names are other values")
	}
	if (toolcall.CallStatus("")).String() != "unknown" {
		t.Fatal("the zero status has a word")
	}
}
