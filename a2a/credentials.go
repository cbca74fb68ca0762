package a2a

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/a2aproject/a2a-go/a2a"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/toolcall"
)

// A served task's caller gives credentials for its tools (A2A's in-task, secondary credentials)
// in a data part of a message: {"credentials": {"NAME": "VALUE"}}. They reach the tools of the
// run the message starts or resumes through [Credential], and are never stored: the server takes
// them out of the message before the task keeps it, leaving only their names.

// CredentialsKey is the key of a message's data part that carries credentials.
const CredentialsKey = "credentials"

// MaxCredentials bounds the credentials one message may give.
const MaxCredentials = 32

// CredentialRequest is the data of the interrupt [Credential] raises: the credential the call
// needs. A served task one of whose calls raised it is in auth-required.
type CredentialRequest struct {
	Kind        string `json:"kind"` // "credentials"
	Credential  string `json:"credential"`
	Description string `json:"description,omitempty"`
}

const credentialKind = "credentials"

type credentialsKey struct{}

// withCredentials gives the tools of a run the credentials its message carried.
func withCredentials(ctx context.Context, creds map[string]string) context.Context {
	if len(creds) == 0 {
		return ctx
	}
	return context.WithValue(ctx, credentialsKey{}, creds)
}

func credentialsOf(ctx context.Context) map[string]string {
	m, _ := ctx.Value(credentialsKey{}).(map[string]string)
	return m
}

// Credential returns the credential named name that the caller of a served task gave with the
// message that started or resumed the tool's run. When it gave none, the error is an interrupt
// ([CredentialRequest]) which the tool returns: the task turns auth-required, describing what
// is needed (description says what for), and the caller's next message, with the credential,
// runs the call again.
func Credential(ctx context.Context, name, description string) (string, error) {
	if v := credentialsOf(ctx)[name]; v != "" {
		return v, nil
	}
	msg := fmt.Sprintf("the call needs the credential %q", name)
	if description != "" {
		msg += ": " + description
	}
	return "", toolcall.InterruptWith(msg, CredentialRequest{Kind: credentialKind, Credential: name, Description: description})
}

// credentialNeeded returns the credential a pending call waits for, or "".
func credentialNeeded(pc client.PendingCall) (string, string) {
	if pc.Status != toolcall.CallInterrupted || pc.Interrupt == nil || len(pc.Interrupt.Data) == 0 {
		return "", ""
	}
	var r CredentialRequest
	if json.Unmarshal(pc.Interrupt.Data, &r) != nil || r.Kind != credentialKind {
		return "", ""
	}
	return r.Credential, r.Description
}

// needsCredentials reports whether a call of the stopped turn waits for a credential.
func needsCredentials(st *client.TurnState) bool {
	for _, pc := range st.Pending() {
		if name, _ := credentialNeeded(pc); name != "" {
			return true
		}
	}
	return false
}

// takeCredentials takes the credentials out of a message, leaving their names: the message is
// kept in the task's history, and sent back to anyone who reads the task.
func takeCredentials(m *sdk.Message) (map[string]string, error) {
	var creds map[string]string
	for i, p := range m.Parts {
		var data, md map[string]any
		switch v := p.(type) {
		case sdk.DataPart:
			data, md = v.Data, v.Metadata
		case *sdk.DataPart:
			data, md = v.Data, v.Metadata
		}
		raw, ok := data[CredentialsKey]
		if !ok {
			continue
		}
		given, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%q is not an object of names and values", CredentialsKey)
		}
		if creds == nil {
			creds = map[string]string{}
		}
		names := make([]any, 0, len(given))
		for name, v := range given {
			s, ok := v.(string)
			if !ok || name == "" || s == "" {
				return nil, fmt.Errorf("credential %q is not a non-empty string", name)
			}
			creds[name] = s
			names = append(names, name)
		}
		if len(creds) > MaxCredentials {
			return nil, fmt.Errorf("more than %d credentials", MaxCredentials)
		}
		kept := make(map[string]any, len(data))
		for k, v := range data {
			kept[k] = v
		}
		kept[CredentialsKey] = map[string]any{"given": names}
		m.Parts[i] = sdk.DataPart{Data: kept, Metadata: md}
	}
	return creds, nil
}
