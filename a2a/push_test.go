package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/internal/clienttest"
)

// Push notifications reach an allowed URL as the task changes; other URLs are refused, and
// another caller cannot read a task's push configurations.
func TestServePushNotifications(t *testing.T) {
	var mu sync.Mutex
	var states []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var task sdk.Task
		if err := json.NewDecoder(r.Body).Decode(&task); err == nil && r.Header.Get("X-A2A-Notification-Token") == "tok" {
			mu.Lock()
			states = append(states, string(task.Status.State))
			mu.Unlock()
		}
	}))
	defer hook.Close()
	hookURL, _ := url.Parse(hook.URL)
	m := chattest.New(chattest.Text("pushed")).Repeat()
	auth := func(r *http.Request) (string, error) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if tok == "" {
			return "", errors.New("no token")
		}
		return tok, nil
	}
	s := serve(t, clienttest.New(t, m), ServerConfig{Authorize: auth, Push: &PushConfig{Allow: func(u *url.URL) error {
		if u.Host != hookURL.Host {
			return errors.New("not the hook")
		}
		return nil
	}}})
	if !s.card.Capabilities.PushNotifications {
		t.Fatal("the card does not say it pushes")
	}
	alice, mallory := s.as(t, "alice"), s.as(t, "mallory")
	p := userMsg("hi")
	p.Config = &sdk.MessageSendConfig{PushConfig: &sdk.PushConfig{URL: hook.URL, Token: "tok"}}
	task := sendTask(t, alice, p)
	if task.Status.State != sdk.TaskStateCompleted {
		t.Fatalf("state %s", task.Status.State)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		got := strings.Join(states, " ")
		mu.Unlock()
		if strings.HasSuffix(got, "completed") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("notifications: %q", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx := context.Background()
	if cs, err := alice.ListTaskPushConfig(ctx, &sdk.ListTaskPushConfigParams{TaskID: task.ID}); err != nil || len(cs) != 1 {
		t.Fatalf("alice's configs: %v %v", cs, err)
	}
	if _, err := mallory.ListTaskPushConfig(ctx, &sdk.ListTaskPushConfigParams{TaskID: task.ID}); !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Fatalf("mallory lists alice's configs: %v", err)
	}
	bad := userMsg("hi")
	bad.Config = &sdk.MessageSendConfig{PushConfig: &sdk.PushConfig{URL: "http://169.254.169.254/latest"}}
	if _, err := alice.SendMessage(ctx, bad); !errors.Is(err, sdk.ErrInvalidParams) {
		t.Fatalf("a push URL not allowed: %v", err)
	}
}
