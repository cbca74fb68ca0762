package tool

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// dateTimeTools has a method of every allowed form and some that are not.
type dateTimeTools struct {
	now time.Time
}

type alarmRequest struct {
	Time string `json:"time" jsonschema:"Time in ISO-8601 format"`
}

type zoneRequest struct {
	Zone string `json:"zone"`
}

func (d *dateTimeTools) GetCurrentDateTime() string { return d.now.Format(time.RFC3339) }

func (d *dateTimeTools) SetAlarm(ctx context.Context, in alarmRequest) error {
	if in.Time == "" {
		return errors.New("no time")
	}
	return nil
}

func (d *dateTimeTools) InZone(in *zoneRequest) (time.Time, error) {
	loc, err := time.LoadLocation(in.Zone)
	if err != nil {
		return time.Time{}, err
	}
	return d.now.In(loc), nil
}

func (d *dateTimeTools) Tick(ctx context.Context) {}

func (d *dateTimeTools) URLFor(ctx context.Context, in zoneRequest) (string, error) {
	return "https://time.example/" + in.Zone, nil
}

// Invalid forms.
func (d *dateTimeTools) Add(a, b int) int                         { return a + b }
func (d *dateTimeTools) Format(layout string) string              { return d.now.Format(layout) }
func (d *dateTimeTools) Split() (string, string)                  { return "", "" }
func (d *dateTimeTools) Join(parts ...string) string              { return "" }
func (d *dateTimeTools) Late(in zoneRequest, ctx context.Context) {}
func (d *dateTimeTools) Callback() func()                         { return nil }

func toolNames(tools []Tool) []string {
	var names []string
	for _, t := range tools {
		names = append(names, t.Definition().Name)
	}
	return names
}

func TestMethods(t *testing.T) {
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tools, err := Methods(&dateTimeTools{now: now}, Only("GetCurrentDateTime", "InZone", "SetAlarm", "Tick", "URLFor"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toolNames(tools), []string{"getCurrentDateTime", "inZone", "setAlarm", "tick", "urlFor"}; !slices.Equal(got, want) {
		t.Errorf("tools %v, want %v", got, want)
	}
	// A listed method of a form that cannot be a tool is an error that says why.
	for method, reason := range map[string]string{
		"Add":      "takes 2 parameters; a tool method takes at most one struct, whose fields are the parameters",
		"Callback": "returns a func(), which cannot be sent to a model",
		"Format":   "takes a string; a tool method takes at most one struct, whose fields are the parameters",
		"Join":     "is variadic",
		"Late":     "takes context.Context after its parameters; it must come first",
		"Split":    "returns 2 values; a tool method returns at most a value and an error",
	} {
		_, err := Methods(&dateTimeTools{}, Only("Tick", method))
		if want := "tool: method " + method + " of *tool.dateTimeTools is listed as a tool but " + reason; err == nil || err.Error() != want {
			t.Errorf("Only(%s): %v, want %s", method, err, want)
		}
	}

	byName := map[string]Tool{}
	for _, tl := range tools {
		byName[tl.Definition().Name] = tl
	}
	ctx := context.Background()
	tests := []struct {
		tool, args, want, err string
	}{
		{"getCurrentDateTime", ``, "2025-06-01T12:00:00Z", ""},
		{"getCurrentDateTime", `{"x":1}`, "", `invalid arguments: /: unexpected property "x" (no properties are allowed)`},
		{"setAlarm", `{"time":"07:00"}`, Done, ""},
		{"setAlarm", `{"time":""}`, "", "no time"},
		{"setAlarm", `{}`, "", `invalid arguments: /: missing required property "time"`},
		{"inZone", `{"zone":"UTC"}`, `"2025-06-01T12:00:00Z"`, ""},
		{"inZone", `{"zone":"Nowhere/Atlantis"}`, "", "unknown time zone Nowhere/Atlantis"},
		{"tick", `{}`, Done, ""},
		{"urlFor", `{"zone":"CET"}`, "https://time.example/CET", ""},
	}
	for _, tc := range tests {
		got, err := byName[tc.tool].Call(ctx, tc.args)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s(%s) error %v, want %s", tc.tool, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s(%s) = %q, %v; want %q", tc.tool, tc.args, got, err, tc.want)
		}
	}
	def := byName["setAlarm"].Definition()
	if def.Description != "setAlarm" {
		t.Errorf("default description %q", def.Description)
	}
	if want := `{"type":"object","properties":{"time":{"type":"string","description":"Time in ISO-8601 format"}},"required":["time"],"additionalProperties":false}`; string(def.InputSchema) != want {
		t.Errorf("schema %s", def.InputSchema)
	}
}

// Methods offers a model only what a type registers or the caller lists: never Close, Reset,
// String or DeleteEverything on its own.
func TestMethodsOffersOnlyChosenMethods(t *testing.T) {
	_, err := Methods(&notes{})
	want := `tool: *tool.notes registers no tool methods, and Methods offers a model only the methods a type registers or the Only option lists: mark them //wield:tool and run wield gen, or pass tool.Only("Add", "Close", "DeleteEverything", "Reset", "Search", "String")`
	if err == nil || err.Error() != want {
		t.Errorf("Methods(&notes{}):\n got %v\nwant %s", err, want)
	}
	tools, err := Methods(&notes{}, Only("Add", "Search"))
	if err != nil || !slices.Equal(toolNames(tools), []string{"add", "search"}) {
		t.Errorf("Only(Add, Search) = %v, %v", toolNames(tools), err)
	}
	if _, err := Methods(&dateTimeTools{}, Only("Missing")); err == nil || err.Error() != "tool: *tool.dateTimeTools has no exported method Missing" {
		t.Errorf("Only(Missing): %v", err)
	}
	if _, err := Methods(&dateTimeTools{}, Only()); err == nil || !strings.Contains(err.Error(), "Only lists no methods") {
		t.Errorf("Only(): %v", err)
	}
}

type notes struct{ items []string }

func (n *notes) Add(in struct {
	Text string `json:"text"`
}) {
	n.items = append(n.items, in.Text)
}
func (n *notes) Search(struct{}) []string { return n.items }
func (n *notes) Close() error             { return nil }
func (n *notes) Reset()                   { n.items = nil }
func (n *notes) DeleteEverything()        { n.items = nil }
func (n *notes) String() string           { return "notes" }

// A method tool with only its name to describe it is logged as a warning.
func TestMethodsWarnsOfBareDescriptions(t *testing.T) {
	var logged strings.Builder
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(prev)
	if _, err := Methods(&notes{}, Only("Search")); err != nil {
		t.Fatal(err)
	}
	if out := logged.String(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "tool=search") {
		t.Errorf("log: %q", out)
	}
	logged.Reset()
	registerCustomerTools()
	if _, err := Methods(customerTools{}); err != nil {
		t.Fatal(err)
	}
	if out := logged.String(); out != "" {
		t.Errorf("registered descriptions logged: %q", out)
	}
}

type cleanTools struct{}

func (cleanTools) Ping(context.Context) (string, error) { return "pong", nil }

type counter struct{ n int }

func (c counter) Value() int { return c.n }
func (c *counter) Inc()      { c.n++ }

func TestMethodsValueReceiver(t *testing.T) {
	tools, err := Methods(counter{n: 3}, Only("Value"))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools); !slices.Equal(got, []string{"value"}) {
		t.Errorf("tools %v", got)
	}
	if got, err := tools[0].Call(context.Background(), "{}"); err != nil || got != "3" {
		t.Errorf("value() = %q, %v", got, err)
	}
	// A method of the pointer type, chosen for a value, is an error that says to pass a pointer.
	_, err = Methods(counter{}, Only("Value", "Inc"))
	if err == nil || err.Error() != "tool: method Inc of tool.counter has a pointer receiver; pass a *tool.counter to Methods" {
		t.Errorf("pointer method of a value: %v", err)
	}
	if tools, err := Methods(&counter{}, Only("Value", "Inc")); err != nil || len(tools) != 2 {
		t.Errorf("Methods(&counter{}) = %v, %v", toolNames(tools), err)
	}
}

// Registered tools: what `wield gen` writes for //wield:tool methods.
type customerTools struct{}

type customerRequest struct {
	ID    int64  `json:"id"`
	Email string `json:"email,omitempty"`
}

func (customerTools) GetCustomerInfo(ctx context.Context, in customerRequest) (map[string]any, error) {
	return map[string]any{"id": in.ID, "tenant": ContextFrom(ctx)["tenantId"]}, nil
}
func (customerTools) UpdateCustomerInfo(in customerRequest) error { return nil }
func (customerTools) Helper(a, b string) string                   { return a + b }

var registerCustomerTools = sync.OnceFunc(func() {
	RegisterMethods[customerTools](
		MethodDoc{Method: "GetCustomerInfo", Description: "Retrieve customer information", ReturnDirect: true},
		MethodDoc{Method: "UpdateCustomerInfo", Name: "updateCustomer", Description: "Update customer information"},
	)
	RegisterType[customerRequest](TypeDoc{
		Description: "Identifies a customer.",
		Fields:      map[string]string{"ID": "Customer id", "Email": "New email address"},
	})
})

func TestMethodsRegistry(t *testing.T) {
	registerCustomerTools()
	tools, err := Methods(customerTools{}, WithTimeout(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	// Helper is not registered, so it is no tool.
	if got := toolNames(tools); !slices.Equal(got, []string{"getCustomerInfo", "updateCustomer"}) {
		t.Errorf("tools %v", got)
	}
	get, upd := tools[0], tools[1]
	if d := get.Definition(); d.Description != "Retrieve customer information" {
		t.Errorf("description %q", d.Description)
	}
	if m := get.Metadata(); !m.ReturnDirect || m.Timeout != time.Second {
		t.Errorf("metadata %+v", m)
	}
	if m := upd.Metadata(); m.ReturnDirect {
		t.Errorf("metadata %+v", m)
	}
	want := `{"type":"object","properties":{"id":{"type":"integer","description":"Customer id"},"email":{"type":"string","description":"New email address"}},"description":"Identifies a customer.","required":["id"],"additionalProperties":false}`
	if got := string(upd.Definition().InputSchema); got != want {
		t.Errorf("schema\n got %s\nwant %s", got, want)
	}
	ctx := WithContext(context.Background(), Context{"tenantId": "acme"})
	if got, err := get.Call(ctx, `{"id":42}`); err != nil || got != `{"id":42,"tenant":"acme"}` {
		t.Errorf("getCustomerInfo = %q, %v", got, err)
	}
}

type badRegistered struct{}

func (badRegistered) Sum(a, b int) int { return a + b }

type missingRegistered struct{}

func (missingRegistered) Real() {}

type dupNames struct{}

func (dupNames) A() {}
func (dupNames) B() {}

type dupDefault struct{}

func (dupDefault) URL() {}
func (dupDefault) Url() {}

func TestMethodsErrors(t *testing.T) {
	RegisterMethods[badRegistered](MethodDoc{Method: "Sum"})
	RegisterMethods[*missingRegistered](MethodDoc{Method: "Real"}, MethodDoc{Method: "Gone"})
	RegisterMethods[dupNames](MethodDoc{Method: "A", Name: "same"}, MethodDoc{Method: "B", Name: "same"})
	tests := []struct {
		name string
		obj  any
		opts []MethodsOption
		want string
	}{
		{"registered with a bad form", badRegistered{}, nil, "method Sum of tool.badRegistered is registered as a tool but takes 2 parameters"},
		{"registered but missing", missingRegistered{}, nil, "method Gone is registered as a tool of tool.missingRegistered but does not exist"},
		{"duplicate registered names", dupNames{}, nil, `methods A and B of tool.dupNames are both named "same"`},
		{"duplicate default names", dupDefault{}, []MethodsOption{Only("URL", "Url")}, `methods URL and Url of tool.dupDefault are both named "url"`},
		{"nil", nil, nil, "Methods of nil"},
		{"nil pointer", (*dateTimeTools)(nil), nil, "Methods of a nil *tool.dateTimeTools"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Methods(tc.obj, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

type lowerNames struct{}

func (lowerNames) URL()        {}
func (lowerNames) Url2()       {}
func (lowerNames) HTTPGetter() {}

func TestMethodsDuplicateDefaultNames(t *testing.T) {
	tools, err := Methods(lowerNames{}, Only("HTTPGetter", "URL", "Url2"))
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools); !slices.Equal(got, []string{"httpGetter", "url", "url2"}) {
		t.Errorf("tools %v", got)
	}
}

func TestDefaultName(t *testing.T) {
	for in, want := range map[string]string{
		"GetCurrentDateTime": "getCurrentDateTime",
		"URL":                "url",
		"URLFor":             "urlFor",
		"HTTPServer":         "httpServer",
		"ID":                 "id",
		"A":                  "a",
		"Ab":                 "ab",
		"already":            "already",
		"ÉtéTime":            "étéTime",
	} {
		if got := DefaultName(in); got != want {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
}
