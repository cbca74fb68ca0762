package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/memory"
)

// reposAgent is a client whose tool lists repositories with a GitHub token the caller gives.
func reposAgent(t *testing.T, runs *atomic.Int32, replies ...chattest.Reply) (*client.Client, *chattest.Model) {
	repos := chattest.NewTool("repos", func(ctx context.Context, _ string) (string, error) {
		runs.Add(1)
		tok, err := Credential(ctx, "github", "a GitHub token to list your repositories")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("repos seen with a token of %d bytes", len(tok)), nil
	})
	m := chattest.New(replies...)
	return clienttest.New(t, m, client.WithTools(repos)), m
}

func credentialsPart(name, value string) sdk.Part {
	return sdk.DataPart{Data: map[string]any{CredentialsKey: map[string]any{name: value}}}
}

// A call that needs a credential the caller did not give turns the task auth-required, saying
// which; a reply without it leaves the task waiting; the reply with it runs the call again,
// and the credential is stored nowhere.
func TestServeAuthRequired(t *testing.T) {
	var runs atomic.Int32
	c, m := reposAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "repos", Arguments: `{}`}), chattest.Text("Here they are."))
	repo := memory.NewInMemory()
	s := serve(t, c, ServerConfig{Tasks: repo})
	ctx := context.Background()
	task := sendTask(t, s.sdk, userMsg("list my repositories"))
	if task.Status.State != sdk.TaskStateAuthRequired {
		t.Fatalf("state %s", task.Status.State)
	}
	pending := pendingCalls(task.Status.Message)
	if len(pending) != 1 || pending[0].ID != "c1" || pending[0].Reason != "credentials" || pending[0].Credential != "github" ||
		!strings.Contains(pending[0].Message, "GitHub token") {
		t.Fatalf("pending %+v", pending)
	}
	again := sendTask(t, s.sdk, onTask(task, sdk.TextPart{Text: "yes"}))
	if again.Status.State != sdk.TaskStateAuthRequired || !strings.Contains(partsText(again.Status.Message.Parts), `needs the credential "github"`) {
		t.Fatalf("a reply without the credential: %s %q", again.Status.State, partsText(again.Status.Message.Parts))
	}
	const secret = "ghp-s3cret-token"
	done := sendTask(t, s.sdk, onTask(task, credentialsPart("github", secret)))
	if done.Status.State != sdk.TaskStateCompleted || answerOf(done) != "Here they are." {
		t.Fatalf("with the credential: %s %q", done.Status.State, answerOf(done))
	}
	if res := m.ToolResults(t, 1); len(res) != 1 || res[0].Content != fmt.Sprintf("repos seen with a token of %d bytes", len(secret)) {
		t.Fatalf("the model read %+v", res)
	}
	if runs.Load() != 2 {
		t.Fatalf("the tool ran %d times, want 2 (asking, then with the credential)", runs.Load())
	}
	got, err := s.sdk.GetTask(ctx, &sdk.TaskQueryParams{ID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	r, _, _ := repo.LoadTurn(ctx, taskKey(task.ID))
	if strings.Contains(string(b), secret) || strings.Contains(string(r.State), secret) {
		t.Fatal("the credential is kept in the task")
	}
	if !strings.Contains(string(b), `"given":["github"]`) {
		t.Fatalf("the history does not say a credential was given: %s", b)
	}

	// Given with the first message, the credential spares the stop; a malformed one is refused.
	first := userMsg("list them again")
	first.Message.Parts = append(first.Message.Parts, credentialsPart("github", secret))
	c2, _ := reposAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "repos", Arguments: `{}`}), chattest.Text("Again."))
	s2 := serve(t, c2, ServerConfig{})
	if got := sendTask(t, s2.sdk, first); got.Status.State != sdk.TaskStateCompleted || answerOf(got) != "Again." {
		t.Fatalf("credential given up front: %s %q", got.Status.State, answerOf(got))
	}
	bad := userMsg("list")
	bad.Message.Parts = append(bad.Message.Parts, sdk.DataPart{Data: map[string]any{CredentialsKey: "github"}})
	if _, err := s2.sdk.SendMessage(ctx, bad); err == nil || !strings.Contains(err.Error(), "credentials") {
		t.Fatalf("malformed credentials: %v", err)
	}
}

// A wield agent's auth-required reaches the calling turn as an interrupt naming the credential;
// the caller's resume with Answer.Credentials continues the remote task.
func TestRemoteAgentAuthRequired(t *testing.T) {
	var runs atomic.Int32
	callee, _ := reposAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "repos", Arguments: `{}`}), chattest.Text("Three repositories."))
	s := serve(t, callee, ServerConfig{Name: "Repos"})
	for _, streaming := range []bool{true, false} {
		card := *s.card
		card.Capabilities.Streaming = streaming
		tl, err := RemoteAgent(context.Background(), Config{Card: &card, HTTPClient: s.http.Client()})
		if err != nil {
			t.Fatal(err)
		}
		r := stopAtRemote(t, context.Background(), tl, "list my repositories")
		var p Pending
		if err := json.Unmarshal(r.pc.Interrupt.Data, &p); err != nil || p.State != "auth-required" || len(p.Calls) != 1 || p.Calls[0].Credential != "github" {
			t.Fatalf("interrupt data %s: %v", r.pc.Interrupt.Data, err)
		}
		if got := r.answer(t, context.Background(), Answer{Credentials: map[string]string{"github": "tok"}}); got != "Three repositories." {
			t.Fatalf("the caller's model read %q", got)
		}
		// The callee's script starts over for the second run.
		callee, _ = reposAgent(t, &runs, chattest.Calls(chat.ToolCall{ID: "c1", Name: "repos", Arguments: `{}`}), chattest.Text("Three repositories."))
		s = serve(t, callee, ServerConfig{Name: "Repos"})
	}
}
