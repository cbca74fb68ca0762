package sqlstore

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/wield-ai/wield/memory/memorytest"
)

// The tests below re-run this test binary as child processes writing to a shared database.
// TestMain turns the binary into such a child when WIELD_SQLSTORE_CHILD names a mode.
func TestMain(m *testing.M) {
	if mode := os.Getenv("WIELD_SQLSTORE_CHILD"); mode != "" {
		if err := child(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child opens the store at $WIELD_SQLSTORE_DSN once and runs mode on it: those of raceChild,
// turnChild and compactChild, and these, which write batches (memorytest.Batch) to conversation
// "c" as writer $WIELD_SQLSTORE_WRITER or read them:
//   - append: $WIELD_SQLSTORE_BATCHES batches, then exit;
//   - loop: batches until killed, printing a line after each one is stored;
//   - hang: $WIELD_SQLSTORE_BATCHES batches, then one more whose transaction stops before its
//     commit, printing "in transaction" and waiting to be killed;
//   - list, list-ro: open the store (read-only for list-ro), print its conversations and the
//     last message of each.
func child(mode string) error {
	ctx := context.Background()
	var opts []Option
	if mode == "list-ro" {
		opts = append(opts, ReadOnly())
	}
	s, err := Open(ctx, os.Getenv("WIELD_SQLSTORE_DSN"), opts...)
	if err != nil {
		return err
	}
	switch {
	case strings.HasPrefix(mode, "turn-race"):
		err = raceChild(ctx, s, mode)
	case strings.HasPrefix(mode, "turn-"):
		err = turnChild(ctx, s, mode)
	case strings.HasPrefix(mode, "compact-"):
		err = compactChild(ctx, s, mode)
	case mode == "list" || mode == "list-ro":
		err = list(ctx, s)
	default:
		err = writeBatches(ctx, s, mode)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeBatches is the batch writers' side of child.
func writeBatches(ctx context.Context, s *Store, mode string) error {
	writer := os.Getenv("WIELD_SQLSTORE_WRITER")
	batches, _ := strconv.Atoi(os.Getenv("WIELD_SQLSTORE_BATCHES"))
	out := bufio.NewWriter(os.Stdout)
	for b := 0; mode == "loop" || b < batches; b++ {
		if err := s.Append(ctx, "c", memorytest.Batch(writer, b, 1+b%5)...); err != nil {
			return err
		}
		if mode == "loop" {
			fmt.Fprintln(out, b)
			out.Flush()
		}
	}
	if mode == "hang" {
		s.beforeCommit = func() {
			fmt.Println("in transaction")
			select {}
		}
		return s.Append(ctx, "c", memorytest.Batch(writer, batches, 300)...)
	}
	return nil
}

func list(ctx context.Context, s *Store) error {
	ids, err := s.Conversations(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		_, msgs, err := s.Last(ctx, id, 1)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %s\n", id, msgs[0].Content)
	}
	return nil
}

// startChild starts a child in mode writing batches as writer to the store at dsn.
func startChild(t *testing.T, mode, dsn, writer string, batches int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	return startProcess(t, append(os.Environ(),
		"WIELD_SQLSTORE_CHILD="+mode,
		"WIELD_SQLSTORE_DSN="+dsn,
		"WIELD_SQLSTORE_WRITER="+writer,
		"WIELD_SQLSTORE_BATCHES="+strconv.Itoa(batches)))
}

// startProcess starts this test binary with env as a child process, killed after t, and returns
// the lines it prints.
func startProcess(t *testing.T, env []string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = env
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewScanner(stdout)
}

// killAt waits until the child prints line, having reached what, and kills it (SIGKILL).
func killAt(t *testing.T, cmd *exec.Cmd, out *bufio.Scanner, line, what string) {
	t.Helper()
	if !out.Scan() || out.Text() != line {
		t.Fatalf("child did not reach %s: %q, %v", what, out.Text(), out.Err())
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// batchCounts checks that conversation "c" of s holds whole batches and returns how many each
// writer stored.
func batchCounts(t *testing.T, s *Store) map[string]int {
	t.Helper()
	msgs, err := s.Messages(t.Context(), "c")
	if err != nil {
		t.Fatal(err)
	}
	counts, err := memorytest.CheckBatches(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestProcesses has two child processes and two goroutines of this one append to one
// conversation at once; nothing may be lost or interleaved.
func TestProcesses(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		const batches = 20
		dsn := b.dsn(t)
		s := open(t, dsn)
		var children []*exec.Cmd
		for _, w := range []string{"p1", "p2"} {
			cmd, _ := startChild(t, "append", dsn, w, batches)
			children = append(children, cmd)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 2)
		for _, w := range []string{"g1", "g2"} {
			wg.Go(func() {
				for i := range batches {
					if err := s.Append(t.Context(), "c", memorytest.Batch(w, i, 1+i%5)...); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		for i, cmd := range children {
			if err := cmd.Wait(); err != nil {
				t.Errorf("child p%d: %v", i+1, err)
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		counts := batchCounts(t, s)
		for _, w := range []string{"p1", "p2", "g1", "g2"} {
			if counts[w] != batches {
				t.Errorf("writer %s: %d batches stored, want %d (all: %v)", w, counts[w], batches, counts)
			}
		}
	})
}

// TestKilledInTransaction kills a process (SIGKILL) after its write transaction has inserted its
// rows and before it commits: the conversation must read as it was before that write, and take
// further writes.
func TestKilledInTransaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		const batches = 4
		dsn := b.dsn(t)
		s := open(t, dsn)
		cmd, out := startChild(t, "hang", dsn, "killed", batches)
		killAt(t, cmd, out, "in transaction", "its transaction")
		// The write lock the child held is gone: this append must not wait for a timeout.
		if err := s.Append(t.Context(), "c", memorytest.Batch("after", 0, 3)...); err != nil {
			t.Fatalf("append after the kill: %v", err)
		}
		checkCounts(t, dsn, map[string]int{"killed": batches, "after": 1})
	})
}

// TestKilledWhileWriting kills a process (SIGKILL) that writes as fast as it can, wherever it
// is: every write it reported done must be there, and nothing else but whole writes.
func TestKilledWhileWriting(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		dsn := b.dsn(t)
		open(t, dsn) // the schema exists before the child starts writing
		cmd, out := startChild(t, "loop", dsn, "looper", 0)
		reported := 0
		for reported < 15 && out.Scan() {
			reported++
		}
		if reported < 15 {
			t.Fatalf("child stopped after %d writes: %v", reported, out.Err())
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		s := open(t, dsn)
		counts := batchCounts(t, s)
		// The child goes on writing while this test reads its reports, so it may have
		// stored more batches than were read; never fewer.
		if n := counts["looper"]; n < reported {
			t.Fatalf("%d batches stored, %d reported done", n, reported)
		}
		if err := s.Append(t.Context(), "c", memorytest.Batch("after", 0, 2)...); err != nil {
			t.Fatal(err)
		}
		checkCounts(t, dsn, map[string]int{"looper": counts["looper"], "after": 1})
	})
}

// checkCounts reopens the store at dsn and checks conversation "c" holds whole batches, as many
// per writer as want says.
func checkCounts(t *testing.T, dsn string, want map[string]int) {
	t.Helper()
	counts := batchCounts(t, open(t, dsn))
	if len(counts) != len(want) {
		t.Fatalf("batches %v, want %v", counts, want)
	}
	for w, n := range want {
		if counts[w] != n {
			t.Fatalf("batches %v, want %v", counts, want)
		}
	}
}
