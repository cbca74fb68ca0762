package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/eventqueue"

	"github.com/wield-ai/wield/toolcall"
)

// approvingAgent asks for input on a new task and completes it with the answer it was given.
type approvingAgent struct{ runs atomic.Int32 }

func (a *approvingAgent) Execute(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	text := partsText(rc.Message.Parts)
	if rc.StoredTask == nil {
		if err := q.Write(ctx, sdk.NewStatusUpdateEvent(rc, sdk.TaskStateSubmitted, nil)); err != nil {
			return err
		}
		ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateInputRequired,
			sdk.NewMessageForTask(sdk.MessageRoleAgent, rc, sdk.TextPart{Text: "approve deleting " + text + "?"}))
		ev.Final = true
		return q.Write(ctx, ev)
	}
	a.runs.Add(1)
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCompleted,
		sdk.NewMessageForTask(sdk.MessageRoleAgent, rc, sdk.TextPart{Text: "done: " + text}))
	ev.Final = true
	return q.Write(ctx, ev)
}

func (a *approvingAgent) Cancel(ctx context.Context, rc *a2asrv.RequestContext, q eventqueue.Queue) error {
	ev := sdk.NewStatusUpdateEvent(rc, sdk.TaskStateCanceled, nil)
	ev.Final = true
	return q.Write(ctx, ev)
}

func TestRemoteAgentInputRequiredThenResume(t *testing.T) {
	ag := &approvingAgent{}
	srv := httptest.NewServer(a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(ag)))
	defer srv.Close()
	card := &sdk.AgentCard{Name: "Deleter", Description: "deletes files", URL: srv.URL,
		PreferredTransport: sdk.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0"}
	tl, err := RemoteAgent(context.Background(), Config{Card: card})
	if err != nil {
		t.Fatal(err)
	}
	if got := tl.Definition().Name; got != "deleter" {
		t.Fatalf("name %q, want deleter", got)
	}
	_, err = tl.Call(context.Background(), `{"input":"notes.txt"}`)
	var ie *toolcall.InterruptError
	if !errors.As(err, &ie) {
		t.Fatalf("call: %v, want an interrupt", err)
	}
	if !strings.Contains(ie.Message, "approve deleting notes.txt?") {
		t.Fatalf("interrupt message %q", ie.Message)
	}
	var p Pending
	if err := json.Unmarshal(ie.Data, &p); err != nil || p.TaskID == "" || p.State != "input-required" {
		t.Fatalf("interrupt data %s: %v", ie.Data, err)
	}
	if n := ag.runs.Load(); n != 0 {
		t.Fatalf("agent ran %d times before the answer", n)
	}
	out, err := tl.(*remoteTool).r.send(context.Background(), &p, "yes")
	if err != nil || out != "done: yes" {
		t.Fatalf("resume: %q, %v", out, err)
	}
	if n := ag.runs.Load(); n != 1 {
		t.Fatalf("agent ran %d times, want 1", n)
	}
}

func TestRemoteAgentBadCard(t *testing.T) {
	srv := httptest.NewServer(nil)
	defer srv.Close()
	if _, err := RemoteAgent(context.Background(), Config{CardURL: srv.URL}); err == nil || !strings.Contains(err.Error(), "agent card") {
		t.Fatalf("no card served: %v", err)
	}
	if _, err := RemoteAgent(context.Background(), Config{}); err == nil {
		t.Fatal("no card nor URL: no error")
	}
}
