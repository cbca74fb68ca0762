package gemini

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
)

// Vertex AI's global endpoint without a project, asked without OAuth credentials, answers 401 in
// the google.rpc envelope (recorded): the request goes to the project-less path, the error is a
// *chat.ProviderError with Vertex's status name and reason, and it is not retried.
func TestVertexUnauthenticated(t *testing.T) {
	exs := providertest.Load(t, "vertex", "adk-vertex-global-endpoint-unauthenticated-error-gemini-2.0-flash")
	srv := replay.NewServer(t, exs...)
	m := newVertexModel(t, srv, "", "", Config{Model: "gemini-2.0-flash"})
	_, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("ping")}})
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a *chat.ProviderError", err)
	}
	if pe.StatusCode != http.StatusUnauthorized || pe.Type != "UNAUTHENTICATED" || pe.Code != "CREDENTIALS_MISSING" ||
		!strings.HasPrefix(pe.Message, "API keys are not supported by this API.") {
		t.Errorf("error %+v", pe)
	}
	if srv.Served() != 1 {
		t.Fatalf("%d requests; a 401 is not retried", srv.Served())
	}
	checkRequest(t, 0, srv.Requests()[0], exs[0], false)
}
