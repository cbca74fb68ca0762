//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// wield sessions list works where the data directory cannot be written.
func TestSessionsListReadOnly(t *testing.T) {
	env := cleanEnv(t)
	m := newFakeOpenAI(t, reply{text: "noted"})
	if r := wield(t, env, "", "chat", "--session", "trip", "--base-url", m.v1(), "--model", "gpt-4o", "hi"); r.code != 0 {
		t.Fatalf("chat: %+v", r)
	}
	var data string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_DATA_HOME="); ok {
			data = filepath.Join(v, "wield")
		}
	}
	run := func(args ...string) result {
		cmd := exec.Command(wieldBin, args...)
		cmd.Env = env
		var out, errw strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errw
		if os.Geteuid() == 0 {
			// Permissions do not bind root: run as nobody, who can read but not write.
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{out.String(), errw.String(), code}
	}
	if os.Geteuid() == 0 {
		// nobody must reach the binary and the data: open the directories on the way.
		for _, d := range []string{filepath.Dir(wieldBin), data} {
			for p := d; p != "/" && p != os.TempDir(); p = filepath.Dir(p) {
				os.Chmod(p, 0o755)
			}
		}
		os.Chmod(filepath.Join(data, "sessions.db"), 0o644)
	}
	if err := os.Chmod(data, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(data, 0o755) })
	r := run("sessions", "list")
	if r.code != 0 || strings.Join(sessionNames(r.stdout), " ") != "trip" {
		t.Fatalf("sessions list on a read-only directory: %+v", r)
	}
	r = run("sessions", "show", "trip")
	if r.code != 0 || !strings.Contains(r.stdout, "noted") {
		t.Fatalf("sessions show on a read-only directory: %+v", r)
	}
}
