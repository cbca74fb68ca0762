package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSymbolPackage(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/openai/openai-go/v3.(*ChatCompletionService).New":                                       "github.com/openai/openai-go/v3",
		"github.com/openai/openai-go/v3/packages/param.Opt[go.shape.bool].Valid":                            "github.com/openai/openai-go/v3/packages/param",
		"type:*github.com/wield-ai/wield/client.Client":                                                     "github.com/wield-ai/wield/client",
		"go:itab.*net/http.Transport,net/http.RoundTripper":                                                 "net/http",
		"type:.eq.github.com/wield-ai/wield/chat.Usage":                                                     "github.com/wield-ai/wield/chat",
		"github.com/openai/openai-go/v3.BetaX.github.com/openai/openai-go/v3/packages/param.SetExtraFields": "github.com/openai/openai-go/v3",
		"gopkg.in/yaml%2ev3.Unmarshal":                                                                      "gopkg.in/yaml.v3",
		"struct { ID github.com/x/y.Field }.github.com/x/y":                                                 "",
		"runtime.mallocgc": "runtime",
		"go:func.*":        "",
	} {
		if got := symbolPackage(name); got != want {
			t.Errorf("symbolPackage(%q) = %q, want %q", name, got, want)
		}
	}
	mods := []string{"github.com/openai/openai-go/v3", "github.com/wield-ai/wield"}
	for pkg, want := range map[string]string{
		"github.com/openai/openai-go/v3/responses": "github.com/openai/openai-go/v3",
		"net/http":          "std",
		"main":              "(main package)",
		"example.com/other": "example.com/other",
	} {
		if got := moduleOf(pkg, mods); got != want {
			t.Errorf("moduleOf(%q) = %q, want %q", pkg, got, want)
		}
	}
}

// The minimal program must not reach a reflect method call (which keeps every exported method
// of the SDK alive) and must weigh at most 1.25 times the same turn on openai-go alone,
// stripped: the target of the size benchmark, held by a test.
func TestMinimalProgramWeight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	mod, err := tempModule(root, tmp)
	if err != nil {
		t.Fatal(err)
	}
	callers, err := reflectMethodCallers(target{"wield minimal", mod, "./wield"})
	if err != nil {
		t.Fatal(err)
	}
	if len(callers) > 0 {
		t.Errorf("the minimal program reaches reflect method calls, which keep every exported method: %v", callers)
	}
	size := func(pkg string) int64 {
		bin := filepath.Join(tmp, filepath.Base(pkg))
		if err := goCmd(mod, nil, "build", "-ldflags=-s -w", "-o", bin, pkg).Run(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	raw, wield := size("./raw"), size("./wield")
	if ratio := float64(wield) / float64(raw); ratio > 1.25 {
		t.Errorf("minimal program %.1f MB stripped, %.2f× the raw openai-go program's %.1f MB; want at most 1.25×", mb(wield), ratio, mb(raw))
	} else {
		t.Logf("minimal program %.1f MB stripped, %.2f× the raw openai-go program's %.1f MB", mb(wield), ratio, mb(raw))
	}
}
