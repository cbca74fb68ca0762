package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/wield-ai/wield/internal/testenv"
)

// TestREADMECommands runs the commands of README.md's sh blocks as they are written, offline:
// the model is the scripted OpenAI-compatible server (through OPENAI_BASE_URL and
// OPENAI_API_KEY), and github.com/wield-ai/wield@latest is this working tree, served as a
// module by a proxy in a directory (GOPROXY=file://…), with the other modules from the module
// cache. ./scripts/test, the test command, is the command that runs this test, so it is only
// checked to exist.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("installs wield and runs the go command")
	}
	root := testenv.ModuleRoot()
	md, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := shellBlocks(string(md))
	var all []string
	for _, b := range blocks {
		all = append(all, b.commands...)
	}
	// The two commands for a newcomer come first: the main job, then the tests.
	if len(blocks) < 2 || strings.Join(blocks[0].commands, "") != `go run ./cmd/wield chat "What day is tomorrow?"` ||
		strings.Join(blocks[1].commands, "") != "./scripts/test" {
		t.Fatalf("README.md must start with the two set-up commands; its commands are %q", all)
	}
	for _, want := range []string{"go install github.com/wield-ai/wield/cmd/wield@latest", "go get github.com/wield-ai/wield@latest",
		"go get -tool github.com/wield-ai/wield/cmd/wieldgen@latest"} {
		if !strings.Contains(strings.Join(all, "\n"), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
	if fi, err := os.Stat(filepath.Join(root, "scripts", "test")); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("./scripts/test is not an executable: %v", err)
	}

	srv := newFakeOpenAI(t, reply{text: "Tomorrow is Tuesday."})
	work := t.TempDir()
	home, gobin, bin, scratch := filepath.Join(work, "home"), filepath.Join(work, "gobin"), filepath.Join(work, "bin"), filepath.Join(work, "scratch")
	for _, d := range []string{home, gobin, bin, scratch} {
		os.MkdirAll(d, 0o755)
	}
	// wield is on the PATH; once the README installs it, the installed one comes first.
	if err := os.Symlink(wieldBin, filepath.Join(bin, "wield")); err != nil {
		t.Fatal(err)
	}
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	proxy := moduleProxy(t, root, filepath.Join(work, "proxy"), goEnv("GOMODCACHE"))
	env := []string{
		"PATH=" + gobin + string(os.PathListSeparator) + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home, "TZ=Asia/Tokyo", "TERM=dumb",
		"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.v1(),
		"GOBIN=" + gobin, "GOPATH=" + goEnv("GOPATH"), "GOMODCACHE=" + goEnv("GOMODCACHE"), "GOCACHE=" + goEnv("GOCACHE"),
		"GOPROXY=file://" + filepath.ToSlash(proxy) + ",file://" + filepath.ToSlash(filepath.Join(goEnv("GOMODCACHE"), "cache", "download")),
		"GOSUMDB=off", "GOTOOLCHAIN=local", "GOFLAGS=" + os.Getenv("GOFLAGS"),
	}
	userModule := newUserModule(t, filepath.Join(work, "app"), env)

	// Every block but the test command's.
	for _, b := range append(blocks[:1:1], blocks[2:]...) {
		dir := scratch
		switch {
		case strings.HasPrefix(b.commands[0], "go run ./"):
			dir = root
		case strings.HasPrefix(b.commands[0], "go get") || strings.HasPrefix(b.commands[0], "go install"):
			dir = userModule
		}
		for _, c := range b.commands {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c)
			cmd.Dir, cmd.Env = dir, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			cancel()
			if err != nil {
				t.Errorf("README.md:%d: %s: %v\n%s", b.line, c, err, out.String())
			}
		}
	}
	// What the commands did: wield installed from the module, the generator run in the module.
	if _, err := os.Stat(filepath.Join(gobin, "wield")); err != nil {
		t.Errorf("go install installed nothing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(userModule, "clock", "wield_tools.go")); err != nil {
		t.Errorf("go generate generated nothing: %v", err)
	}
	if len(srv.chatRequests()) == 0 {
		t.Error("no command asked the model anything")
	}
}

// TestREADMEConfigExample loads the README's configuration file example.
func TestREADMEConfigExample(t *testing.T) {
	md, err := os.ReadFile(filepath.Join(testenv.ModuleRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(md), "\n```json\n")
	example, _, _ := strings.Cut(after, "\n```")
	if !ok {
		t.Fatal("README.md has no configuration example")
	}
	var c loadedConfig
	if err := c.parse([]byte(example)); err != nil {
		t.Fatalf("the README's configuration: %v\n%s", err, example)
	}
	if c.Model == "" || len(c.Providers) == 0 || len(c.mcp) == 0 || c.Approval == nil {
		t.Fatalf("the README's configuration shows too little: %+v", c.fileConfig)
	}
}

// shellBlock is a ```sh block of a Markdown text: its commands, comments and blank lines left
// out, and the line it starts on.
type shellBlock struct {
	commands []string
	line     int
}

func shellBlocks(md string) []shellBlock {
	var (
		out []shellBlock
		cur *shellBlock
	)
	for i, line := range strings.Split(md, "\n") {
		switch {
		case cur == nil && strings.TrimSpace(line) == "```sh":
			cur = &shellBlock{line: i + 2}
		case cur != nil && strings.TrimSpace(line) == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			cur.commands = append(cur.commands, strings.TrimSpace(line))
		}
	}
	return out
}

// moduleProxy lays out a module proxy in dir serving the working tree at root as the latest
// github.com/wield-ai/wield: the files git tracks or would track (git's ignores apply, so the
// test command's .tools stay out). The version is a pseudo-version of its own, so that runs side
// by side sharing a module cache each get their tree; what the run adds to the module cache is
// removed when the test ends.
func moduleProxy(t *testing.T, root, dir, modcache string) string {
	t.Helper()
	var rev [6]byte
	rand.Read(rev[:])
	moduleProxyVersion := "v0.0.0-" + time.Now().UTC().Format("20060102150405") + "-" + hex.EncodeToString(rev[:])
	t.Cleanup(func() {
		// Module cache entries are read-only.
		extracted := filepath.Join(modcache, "github.com", "wield-ai", "wield@"+moduleProxyVersion)
		filepath.WalkDir(extracted, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(extracted)
		downloads, _ := filepath.Glob(filepath.Join(modcache, "cache", "download", "github.com", "wield-ai", "wield", "@v", moduleProxyVersion+".*"))
		for _, f := range downloads {
			os.Remove(f)
		}
	})
	tree := filepath.Join(t.TempDir(), "tree")
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("the README's install commands need a git checkout to serve the module from: %v", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		src := filepath.Join(root, f)
		fi, err := os.Lstat(src)
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted in the working tree, or not a file
		}
		dst := filepath.Join(tree, f)
		os.MkdirAll(filepath.Dir(dst), 0o755)
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mv := module.Version{Path: "github.com/wield-ai/wield", Version: moduleProxyVersion}
	at := filepath.Join(dir, "github.com", "wield-ai", "wield", "@v")
	os.MkdirAll(at, 0o755)
	var zip bytes.Buffer
	if err := modzip.CreateFromDir(&zip, mv, tree); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(tree, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]string{"Version": moduleProxyVersion, "Time": "2025-01-01T00:00:00Z"})
	// A pseudo-version is not listed: @latest names it.
	for name, data := range map[string][]byte{
		"@v/list": nil, "@latest": info, "@v/" + moduleProxyVersion + ".info": info,
		"@v/" + moduleProxyVersion + ".mod": gomod, "@v/" + moduleProxyVersion + ".zip": zip.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(at, "..", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newUserModule makes a module of a user of wield: a package with a tool method that asks go
// generate to run wieldgen.
func newUserModule(t *testing.T, dir string, env []string) string {
	t.Helper()
	src := `package clock

//go:generate go tool wieldgen

import "github.com/wield-ai/wield/tool"

// Clock tells the time.
type Clock struct{}

// Now returns the time.
//
//wield:tool
func (Clock) Now() string { return "" }

// Tools are the clock's tools.
func Tools() ([]tool.Tool, error) { return tool.Methods(Clock{}) }
`
	os.MkdirAll(filepath.Join(dir, "clock"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "clock", "clock.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "init", "example.com/app")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod init: %v\n%s", err, out)
	}
	return dir
}
