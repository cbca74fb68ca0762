package gen

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/ast"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestGolden(t *testing.T) {
	src, err := Source(Config{Dir: "testdata/sample"})
	if err != nil {
		t.Fatal(err)
	}
	testenv.Golden(t, "testdata/sample.wield_tools.go.golden", src, *update)
}

// TestGeneratedCodeRuns compiles the sample package with its generated file and checks the
// tools tool.Methods makes from it.
func TestGeneratedCodeRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	src, err := Source(Config{Dir: "testdata/sample"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gen := filepath.Join(dir, DefaultOutput)
	if err := os.WriteFile(gen, src, 0o644); err != nil {
		t.Fatal(err)
	}
	sample, err := filepath.Abs("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": map[string]string{filepath.Join(sample, DefaultOutput): gen}})
	overlayFile := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayFile, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "run", "-overlay", overlayFile, ".")
	cmd.Dir = sample
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.Bytes())
	}
	testenv.Golden(t, "testdata/sample.tools.golden.json", out, *update)

	var tools []struct {
		Definition struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"definition"`
		ReturnDirect bool `json:"returnDirect"`
	}
	if err := json.Unmarshal(out, &tools); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, tl := range tools {
		byName[tl.Definition.Name] = i
	}
	if len(tools) != 3 {
		t.Fatalf("tools %v, want getCurrentDateTime, set_alarm and forecast only", byName)
	}
	for _, want := range []struct {
		name, desc   string
		returnDirect bool
		schemaHas    []string
	}{
		{"getCurrentDateTime", "Gets the current date and time in the user's time zone.", false, nil},
		{"set_alarm", "Sets a user alarm for the given time and says when it will ring.", true, []string{
			`"description":"AlarmRequest asks for an alarm."`,
			`"description":"Time is when the alarm rings, in ISO-8601 format."`,
			`"description":"Label names the alarm."`,
			`"description":"the tag's description"`,
			`"description":"Priority orders alarms that ring at once."`,
			`"description":"Days are the weekdays the alarm rings on."`,
		}},
		{"forecast", "Tells the weather of the next days.\n\nExample arguments:\n\n\t{\"city\": \"Lisbon\", \"days\": 3}\n\nIt never fails.", false, []string{
			`"description":"City is the city's name."`,
		}},
	} {
		i, ok := byName[want.name]
		if !ok {
			t.Errorf("no tool %q in %v", want.name, byName)
			continue
		}
		got := tools[i]
		if got.Definition.Description != want.desc {
			t.Errorf("%s: description %q, want %q", want.name, got.Definition.Description, want.desc)
		}
		if got.ReturnDirect != want.returnDirect {
			t.Errorf("%s: returnDirect %v", want.name, got.ReturnDirect)
		}
		var compact bytes.Buffer
		json.Compact(&compact, got.Definition.InputSchema)
		for _, s := range want.schemaHas {
			if !strings.Contains(compact.String(), s) {
				t.Errorf("%s: schema lacks %s:\n%s", want.name, s, compact.String())
			}
		}
		if strings.Contains(compact.String(), "which wins over this comment") {
			t.Errorf("%s: a field comment won over its jsonschema tag", want.name)
		}
	}
}

func writePkg(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"function", "package p\n\n// F does.\n//\n//wield:tool\nfunc F() {}\n", "p.go:5:1: //wield:tool on func F: only methods can be tools"},
		{"unexported", "package p\ntype T struct{}\n\n//wield:tool\nfunc (T) f() {}\n", "p.go:4:1: //wield:tool on method f: tool methods must be exported"},
		{"generic", "package p\ntype T[X any] struct{}\n\n//wield:tool\nfunc (T[X]) F() {}\n", "methods of generic types cannot be registered"},
		{"unknown option", "package p\ntype T struct{}\n\n//wield:tool returndirect\nfunc (T) F() {}\n", `unknown option "returndirect" (options: name=NAME, returnDirect)`},
		{"bad name", "package p\ntype T struct{}\n\n//wield:tool name=a/b\nfunc (T) F() {}\n", `invalid tool name "a/b"`},
		{"empty name", "package p\ntype T struct{}\n\n//wield:tool name=\nfunc (T) F() {}\n", `invalid tool name ""`},
		{"duplicate name", "package p\ntype T struct{}\n\n//wield:tool name=x\nfunc (T) F() {}\n\n//wield:tool name=x\nfunc (T) G() {}\n", `methods F and G of T are both tools named "x"`},
		{"duplicate default name", "package p\ntype T struct{}\n\n//wield:tool name=f\nfunc (T) F() {}\n\n//wield:tool\nfunc (*T) G() {}\n\n//wield:tool name=g\nfunc (T) H() {}\n", `methods G and H of T are both tools named "g"`},
		{"two directives", "package p\ntype T struct{}\n\n//wield:tool\n//wield:tool name=x\nfunc (T) F() {}\n", "more than one //wield:tool directive on F"},
		{"detached", "package p\ntype T struct{}\n\n//wield:tool\n\nfunc (T) F() {}\n", "p.go:4:1: //wield:tool must be in the doc comment of a method"},
		{"on a type", "package p\n\n//wield:tool\ntype T struct{}\n", "must be in the doc comment of a method"},
		{"syntax error", "package p\nfunc (\n", "p.go:2:8: expected ')'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writePkg(t, map[string]string{"p.go": tt.src})
			_, err := Generate(Config{Dir: dir})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, err := os.Stat(filepath.Join(dir, DefaultOutput)); err == nil {
				t.Fatal("a file was written despite the error")
			}
		})
	}
	if _, err := Generate(Config{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no Go files") {
		t.Errorf("empty directory: %v", err)
	}
	for _, out := range []string{"x/y.go", "tools.txt", "tools_test.go"} {
		if _, err := Generate(Config{Dir: t.TempDir(), Output: out}); err == nil || !strings.Contains(err.Error(), "must be a .go file name") {
			t.Errorf("output %q: %v", out, err)
		}
	}
}

const oneTool = "package p\n\ntype T struct{}\n\n// F does.\n//\n//wield:tool\nfunc (T) F() {}\n"

func TestGenerateFiles(t *testing.T) {
	dir := writePkg(t, map[string]string{"p.go": oneTool, "p_test.go": "package p\n\n//wield:tool\nfunc (T) InTest() {}\n"})
	res, err := Generate(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, DefaultOutput)
	if !res.Written || res.File != out || res.Methods != 1 || res.Package != "p" {
		t.Fatalf("result %+v", res)
	}
	src, _ := os.ReadFile(out)
	if !bytes.HasPrefix(src, []byte(Header+"\n")) || !bytes.Contains(src, []byte(`Description: "Does."`)) {
		t.Fatalf("generated:\n%s", src)
	}
	// An unchanged package leaves the file alone, and the generated file is not read as input.
	res, err = Generate(Config{Dir: dir})
	if err != nil || res.Written {
		t.Fatalf("second run: %+v, %v", res, err)
	}
	// Without tool methods the stale file goes.
	os.WriteFile(filepath.Join(dir, "p.go"), []byte("package p\n\ntype T struct{}\n"), 0o644)
	res, err = Generate(Config{Dir: dir})
	if err != nil || !res.Removed {
		t.Fatalf("after removing the directive: %+v, %v", res, err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("stale file still there: %v", err)
	}
}

func TestGenerateKeepsOtherFiles(t *testing.T) {
	dir := writePkg(t, map[string]string{"p.go": oneTool, "tools.go": "package p\n\n// hand-written\n"})
	_, err := Generate(Config{Dir: dir, Output: "tools.go"})
	if err == nil || !strings.Contains(err.Error(), "not generated by wield gen") {
		t.Fatalf("overwriting a hand-written file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "tools.go")); string(b) != "package p\n\n// hand-written\n" {
		t.Fatalf("hand-written file changed: %s", b)
	}
}

func TestBuildConstraints(t *testing.T) {
	dir := writePkg(t, map[string]string{
		"p.go":     oneTool,
		"extra.go": "//go:build wieldextra\n\npackage p\n\n// G does more.\n//\n//wield:tool\nfunc (T) G() {}\n",
	})
	src, err := Source(Config{Dir: dir})
	if err != nil || bytes.Contains(src, []byte(`"G"`)) {
		t.Fatalf("without the tag: %v\n%s", err, src)
	}
	src, err = Source(Config{Dir: dir, BuildTags: []string{"wieldextra"}})
	if err != nil || !bytes.Contains(src, []byte(`"G"`)) {
		t.Fatalf("with the tag: %v\n%s", err, src)
	}
}

func TestImportAlias(t *testing.T) {
	dir := writePkg(t, map[string]string{"p.go": oneTool + "\nvar tool = 1\n"})
	src, err := Source(Config{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(`import wieldtool "github.com/wield-ai/wield/tool"`)) || !bytes.Contains(src, []byte("wieldtool.RegisterMethods[T](")) {
		t.Fatalf("a package with its own name tool:\n%s", src)
	}
}

func TestNoTools(t *testing.T) {
	src, err := Source(Config{Dir: writePkg(t, map[string]string{"p.go": "package p\n\n// F is no tool.\nfunc F() {}\n"})})
	if err != nil || src != nil {
		t.Fatalf("Source = %q, %v", src, err)
	}
}

func TestDescribe(t *testing.T) {
	tests := []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{"// One line."}, "One line."},
		{[]string{"// Two", "// lines."}, "Two lines."},
		{[]string{"// First.", "//", "// Second", "// paragraph."}, "First.\n\nSecond paragraph."},
		{[]string{"// Code:", "//", "//\tx := 1", "//\ty := 2", "//", "// After."}, "Code:\n\n\tx := 1\n\ty := 2\n\nAfter."},
		{[]string{"// Text.", "//", "//wield:tool name=x"}, "Text."},
		{[]string{"/* Block\ncomment. */"}, "Block comment."},
	}
	for _, tt := range tests {
		cg := &ast.CommentGroup{}
		for _, l := range tt.lines {
			cg.List = append(cg.List, &ast.Comment{Text: l})
		}
		if tt.lines == nil {
			cg = nil
		}
		if got := describe(cg); got != tt.want {
			t.Errorf("describe(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}

func TestStripName(t *testing.T) {
	tests := []struct{ desc, name, want string }{
		{"GetWeather returns the weather.", "GetWeather", "Returns the weather."},
		{"Get the weather.", "GetWeather", "Get the weather."},
		{"GetWeather", "GetWeather", "GetWeather"},
		{"GetWeather Service is down.", "GetWeather", "GetWeather Service is down."},
		{"GetWeatherNow returns.", "GetWeather", "GetWeatherNow returns."},
		{"Émettre émet un signal.", "Émettre", "Émet un signal."},
		{"", "F", ""},
	}
	for _, tt := range tests {
		if got := stripName(tt.desc, tt.name); got != tt.want {
			t.Errorf("stripName(%q, %q) = %q, want %q", tt.desc, tt.name, got, tt.want)
		}
	}
}

// namingProbe has methods whose names exercise tool.Methods' default naming.
type namingProbe struct{}

func (namingProbe) GetTime()    {}
func (namingProbe) URL()        {}
func (namingProbe) HTTPServer() {}
func (namingProbe) A()          {}

// TestDefaultNameMatchesMethods checks that the naming gen reports clashes with is the one
// tool.Methods applies.
func TestDefaultNameMatchesMethods(t *testing.T) {
	tools, err := tool.Methods(namingProbe{}, tool.Only("A", "GetTime", "HTTPServer", "URL"))
	if err != nil {
		t.Fatal(err)
	}
	methods := []string{"A", "GetTime", "HTTPServer", "URL"} // reflect's method order
	if len(tools) != len(methods) {
		t.Fatalf("%d tools", len(tools))
	}
	for i, tl := range tools {
		if got, want := tool.DefaultName(methods[i]), tl.Definition().Name; got != want {
			t.Errorf("tool.DefaultName(%q) = %q, tool.Methods names it %q", methods[i], got, want)
		}
	}
}
