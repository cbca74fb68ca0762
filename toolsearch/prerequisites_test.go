package toolsearch

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// ioDef is a definition with the given required inputs and outputs, all strings.
func ioDef(name string, required []string, outputs ...string) tool.Definition {
	schema := func(names []string, req []string) json.RawMessage {
		props := map[string]any{}
		for _, n := range names {
			props[n] = map[string]any{"type": "string"}
		}
		s := map[string]any{"type": "object", "properties": props}
		if req != nil {
			s["required"] = req
		}
		b, _ := json.Marshal(s)
		return b
	}
	d := tool.Definition{Name: name, Description: name, InputSchema: schema(required, required)}
	if len(outputs) > 0 {
		d.OutputSchema = schema(outputs, nil)
	}
	return d
}

// accountDefs is an account service: login returns the session token three tools require, in
// three spellings.
func accountDefs() []tool.Definition {
	return []tool.Definition{
		ioDef("login", []string{"user", "password"}, "session_token", "expires"),
		ioDef("deleteAccount", []string{"sessionToken"}, "status"),
		ioDef("listOrders", []string{"SessionToken", "since"}),
		ioDef("changeEmail", []string{"session-token", "email"}, "status"),
		ioDef("getWeather", []string{"city"}, "forecast"),
	}
}

func TestPrerequisitesOf(t *testing.T) {
	p := NewPrerequisites(accountDefs())
	for _, name := range []string{"deleteAccount", "listOrders", "changeEmail"} {
		got := p.Of(name)
		if len(got) != 1 || got[0].Tool != "login" {
			t.Errorf("Of(%s) = %v, want login", name, got)
		}
	}
	if got := p.Of("listOrders"); got[0].Input != "SessionToken" {
		t.Errorf("Input = %q, want the dependent's own spelling", got[0].Input)
	}
	for _, name := range []string{"login", "getWeather", "unknown"} {
		if got := p.Of(name); got != nil {
			t.Errorf("Of(%s) = %v, want none", name, got)
		}
	}
	var none *Prerequisites
	if none.Of("deleteAccount") != nil || len(none.BringAlong([]Hit{{Name: "a"}, {Name: "b"}}, 1)) != 1 {
		t.Error("a nil Prerequisites must know none and keep hits as they are")
	}
	// Of returns a copy.
	p.Of("deleteAccount")[0].Tool = "x"
	if p.Of("deleteAccount")[0].Tool != "login" {
		t.Error("Of exposes the internal slice")
	}
}

func TestPrerequisitesRules(t *testing.T) {
	base := accountDefs()
	tests := []struct {
		name string
		defs []tool.Definition
		want string // login's dependents get this prerequisite ("" for none)
	}{
		{"three dependents", base, "login"},
		{"two dependents are a coincidence", base[:3], ""},
		{"two tools return the value", append(slices.Clone(base), ioDef("register", []string{"user"}, "sessionToken")), ""},
		// A tool that requires the value it returns (a refresh) is no first step.
		{"refresh is no producer", append(slices.Clone(base), ioDef("refresh", []string{"session_token"}, "session_token")), "login"},
		// Names are read as JSON strings, escapes and all.
		{"escaped names", []tool.Definition{
			{Name: "login", OutputSchema: json.RawMessage(`{"properties":{"session\u005Ftoken":{}}}`)}, base[1], base[2],
			{Name: "changeEmail", InputSchema: json.RawMessage(`{"required":["Session\u0054oken"]}`)},
		}, "login"},
		// The value must be required: an optional input is given or not, as the model likes.
		{"optional inputs", []tool.Definition{base[0],
			{Name: "deleteAccount", InputSchema: json.RawMessage(`{"type":"object","properties":{"session_token":{}}}`)},
			{Name: "listOrders", InputSchema: json.RawMessage(`{"type":"object","properties":{"session_token":{}}}`)},
			{Name: "changeEmail", InputSchema: json.RawMessage(`{"type":"object","properties":{"session_token":{}}}`)},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewPrerequisites(tt.defs).Of("deleteAccount")
			switch {
			case tt.want == "" && got != nil:
				t.Errorf("Of(deleteAccount) = %v, want none", got)
			case tt.want != "" && (len(got) != 1 || got[0].Tool != tt.want):
				t.Errorf("Of(deleteAccount) = %v, want %s", got, tt.want)
			}
		})
	}
}

// Schemas that are not objects, not JSON or shaped oddly contribute nothing and break nothing.
func TestPrerequisitesHostileSchemas(t *testing.T) {
	defs := accountDefs()
	for i, s := range []string{
		``, `null`, `[]`, `"x"`, `{`, `{"properties":`, `{"properties":[1,2]}`, `{"required":"session_token"}`,
		`{"required":[1,null,{"a":1},"session_token"],"properties":{"session_token":{}}}`,
		`{"properties":{"session_token":{}},"required":["session_token"],"properties":{"other":{}}}`,
		`{"properties":{"a":` + strings.Repeat(`{"b":`, 5000) + `1` + strings.Repeat(`}`, 5000) + `}}`,
		"{\"properties\":{\"\xff\":{}},\"required\":[\"\xff\"]}",
	} {
		defs = append(defs, tool.Definition{Name: "odd" + string(rune('a'+i)), InputSchema: json.RawMessage(s), OutputSchema: json.RawMessage(s)})
	}
	p := NewPrerequisites(defs)
	if got := p.Of("deleteAccount"); len(got) != 1 || got[0].Tool != "login" {
		t.Errorf("Of(deleteAccount) = %v: odd schemas changed the well-formed ones", got)
	}
	// The one odd schema that is valid and requires session_token makes a fourth dependent.
	if got := p.Of("oddi"); len(got) != 1 || got[0].Tool != "login" {
		t.Errorf("Of(oddi) = %v, want login (the strings of a required list are read, the rest skipped)", got)
	}
	// A repeated "properties" counts its last value: session_token is no longer a property, but
	// it is still required.
	if got := p.Of("oddj"); len(got) != 1 {
		t.Errorf("Of(oddj) = %v", got)
	}
}

func TestBringAlong(t *testing.T) {
	p := NewPrerequisites(append(accountDefs(),
		// verify needs a code that only sendCode returns, and sendCode a phone only lookupPhone
		// returns: prerequisites of prerequisites.
		ioDef("sendCode", []string{"phone"}, "code"),
		ioDef("lookupPhone", []string{"user"}, "phone"),
		ioDef("verify", []string{"code"}), ioDef("verify2", []string{"code"}), ioDef("verify3", []string{"code"}),
		ioDef("call", []string{"phone"}), ioDef("sms", []string{"phone"}),
	))
	hits := func(ns ...string) []Hit {
		out := make([]Hit, len(ns))
		for i, n := range ns {
			out[i] = Hit{Name: n, Score: float64(10 - i)}
		}
		return out
	}
	tests := []struct {
		name  string
		hits  []Hit
		limit int
		want  []string
	}{
		{"takes the last place", hits("deleteAccount", "getWeather", "a", "b"), 4, []string{"deleteAccount", "getWeather", "a", "login"}},
		{"room to spare", hits("deleteAccount", "getWeather"), 5, []string{"deleteAccount", "getWeather", "login"}},
		{"once for several dependents", hits("deleteAccount", "listOrders", "changeEmail"), 4, []string{"deleteAccount", "listOrders", "changeEmail", "login"}},
		{"found by the search keeps its place", hits("deleteAccount", "a", "login", "b"), 4, []string{"deleteAccount", "a", "login", "b"}},
		{"found later than its place", hits("deleteAccount", "a", "b", "login"), 3, []string{"deleteAccount", "a", "login"}},
		{"chains", hits("verify", "a", "b", "c"), 4, []string{"verify", "a", "sendCode", "lookupPhone"}},
		{"no room", hits("deleteAccount"), 1, []string{"deleteAccount"}},
		{"no limit but the hits", hits("deleteAccount"), math.MaxInt, []string{"deleteAccount", "login"}},
		{"limit zero", hits("deleteAccount"), 0, nil},
		{"no hits", nil, 5, []string{}},
		{"repeated hits", hits("a", "a", "deleteAccount"), 3, []string{"a", "deleteAccount", "login"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.BringAlong(tt.hits, tt.limit)
			if tt.want == nil {
				if got != nil {
					t.Errorf("BringAlong = %v, want nil", got)
				}
				return
			}
			if !slices.Equal(names(got), tt.want) {
				t.Errorf("BringAlong = %v, want %v", names(got), tt.want)
			}
		})
	}
	// A tool brought along has the score of the hit that needs it.
	got := p.BringAlong(hits("x", "deleteAccount"), 5)
	if got[2].Name != "login" || got[2].Score != got[1].Score {
		t.Errorf("scores %v", got)
	}
	// What came along for whom, for the search tool's report; login found by the search is not.
	_, along := p.bringAlong(hits("deleteAccount", "verify"), 5)
	if len(along) != 3 || along[0] != (broughtAlong{Prerequisite{"login", "sessionToken"}, "deleteAccount"}) ||
		along[1].Tool != "sendCode" || along[2] != (broughtAlong{Prerequisite{"lookupPhone", "phone"}, "sendCode"}) {
		t.Errorf("along %v", along)
	}
	if _, along := p.bringAlong(hits("deleteAccount", "login"), 5); len(along) != 0 {
		t.Errorf("along %v: login was found by the search", along)
	}
}

// accountTools are real tools of an account service: login's typed result gives it an output
// schema with the token the three account tools require.
func accountTools(t *testing.T) []tool.Tool {
	t.Helper()
	type session struct {
		Token string `json:"token"`
	}
	type withToken struct {
		Token string `json:"token"`
	}
	login := tool.Must(tool.Func("login", "Signs in with a user name and a password.",
		func(context.Context, struct {
			User     string `json:"user"`
			Password string `json:"password"`
		}) (session, error) {
			return session{Token: "t-1"}, nil
		}))
	out := []tool.Tool{login}
	for _, n := range []string{"deleteAccount", "listOrders", "changeEmail"} {
		out = append(out, tool.Must(tool.Func(n, n+" of the signed-in user's account.",
			func(context.Context, withToken) (string, error) { return "done", nil })))
	}
	return append(out, tool.Must(tool.Func("getWeather", "Weather forecast of a city.",
		func(context.Context, cityIn) (string, error) { return "sunny", nil })))
}

// The advisor's search tool brings login along with deleteAccount and says why; with
// DisablePrerequisites it does not.
func TestSearchBringsPrerequisitesAlong(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		model := chattest.New(
			chattest.Calls(chattest.Call(SearchToolName, `{"query":"delete account","maxResults":2}`)),
			chattest.Text("done"),
		)
		cl := clienttest.New(t, model, client.WithAdvisors(New(Config{DisablePrerequisites: disabled})))
		if _, err := cl.Prompt("Delete my account").Tools(toTools(accountTools(t))...).Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
		got := toolNamesOf(model.Prompt(1))
		res, _ := lastToolResult(model.Prompt(1))
		if disabled {
			if len(got) != 3 || got[1] != "deleteAccount" || slices.Contains(got, "login") || strings.Contains(res.Content, "login") {
				t.Errorf("disabled: tools %v, result %q", got, res.Content)
			}
			continue
		}
		// Two places: login takes the second, the limit holding prerequisites included.
		want := "Found 2 tools, callable from your next step: deleteAccount, login\ndeleteAccount requires token, which login returns."
		if !slices.Equal(got, []string{SearchToolName, "deleteAccount", "login"}) || res.Content != want {
			t.Errorf("tools %v, result %q", got, res.Content)
		}
	}

	model := chattest.New(
		chattest.Calls(chattest.Call(SearchToolName, `{"queries":["delete account","weather"],"maxResults":2}`)),
		chattest.Text("done"),
	)
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{})))
	if _, err := cl.Prompt("Delete my account and tell me the weather").Tools(toTools(accountTools(t))...).Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	got := toolNamesOf(model.Prompt(1))
	if !slices.Contains(got, "deleteAccount") || !slices.Contains(got, "getWeather") || !slices.Contains(got, "login") {
		t.Errorf("tools %v, want deleteAccount, getWeather and login", got)
	}
	res, _ := lastToolResult(model.Prompt(1))
	if !strings.Contains(res.Content, "\ndeleteAccount requires token, which login returns.") {
		t.Errorf("search result does not say why login came:\n%s", res.Content)
	}
}

// FuzzPrerequisites reads hostile schemas: it never panics, and what it brings along stays
// within the limit, once each, and names tools of the set.
func FuzzPrerequisites(f *testing.F) {
	f.Add([]byte(`{"required":["token"],"properties":{"token":{}}}`), []byte(`{"properties":{"token":{}}}`), 3)
	f.Add([]byte(`{"required":["a\u005fb"]}`), []byte(`{"properties":{"AB":{"properties":{"x":{}}}}}`), 1)
	f.Add([]byte(`[`), []byte(`{"properties":{"":{}},"required":[""]}`), 0)
	f.Fuzz(func(t *testing.T, in, out []byte, limit int) {
		defs := []tool.Definition{
			{Name: "p", InputSchema: in, OutputSchema: out},
			{Name: "a", InputSchema: in}, {Name: "b", InputSchema: in, OutputSchema: in},
			{Name: "c", InputSchema: out, OutputSchema: out},
		}
		p := NewPrerequisites(defs)
		limit %= 8
		got := p.BringAlong([]Hit{{Name: "a", Score: 2}, {Name: "c", Score: 1}, {Name: "x"}}, limit)
		if len(got) > max(limit, 0) {
			t.Fatalf("%d hits, limit %d", len(got), limit)
		}
		seen := map[string]bool{}
		for _, h := range got {
			if seen[h.Name] || !slices.Contains([]string{"p", "a", "b", "c", "x"}, h.Name) {
				t.Fatalf("hits %v", got)
			}
			seen[h.Name] = true
		}
		for _, d := range defs {
			for _, pre := range p.Of(d.Name) {
				if pre.Tool == d.Name || pre.Input == "" {
					t.Fatalf("Of(%s) = %v", d.Name, p.Of(d.Name))
				}
			}
		}
	})
}

// With the provider loading what the advisor's search finds, the prerequisites are loaded too.
func TestNativeClientSearchLoadsPrerequisites(t *testing.T) {
	model := chattest.New(chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		if res, ok := lastToolResult(p); ok {
			names, err := chat.ParseToolSearchResult(res.Content)
			if err != nil {
				return nil, err
			}
			return reply(chat.Assistant(strings.Join(names, ","))), nil
		}
		return reply(chat.Assistant("", chat.ToolCall{ID: "s", Name: SearchToolName, Arguments: `{"query":"delete account","maxResults":2}`})), nil
	})).Repeat()
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Native: chat.ToolSearchClient})))
	got, err := cl.Prompt("Delete my account").Tools(toTools(accountTools(t))...).Call(context.Background()).Content()
	if err != nil || got != "deleteAccount,login" {
		t.Errorf("loaded %q, %v; want deleteAccount and login", got, err)
	}
}
