package temporal_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/temporal"
	"github.com/wield-ai/wield/temporal/internal/servertest"
	"github.com/wield-ai/wield/tool"
)

// bulkyClient asks for rounds rounds of one call, each of whose results is size bytes, then
// answers with how many results it read.
func bulkyClient(rounds, size int, opts ...client.Option) *client.Client {
	big := tool.Must(tool.Func("dump", "Dumps a file", func(_ context.Context, in pathIn) (string, error) {
		return in.Path + ":" + strings.Repeat("x", size), nil
	}, tool.ReadOnly()))
	m := roundsModel(rounds, fmt.Sprintf("read %d files", rounds), func(i int) chat.ToolCall {
		return chat.ToolCall{Name: "dump", Arguments: fmt.Sprintf(`{"path":"f%d"}`, i)}
	})
	return newClient(m, append(opts, client.WithTools(big), client.WithAdvisors(client.NewToolLoop(client.ToolLoopConfig{MaxIterations: rounds + 1})))...)
}

// historyBytes returns the size of a turn's history.
func historyBytes(t *testing.T, tc sdkclient.Client, id string) int {
	t.Helper()
	return fetchHistory(t, tc, id).Size()
}

// TestLongTurnWithBlobs: a client-loop turn whose tool results (300 KB each) take its
// conversation far over Temporal's payload limit finishes when payloads are kept in a blob
// store, its history holding references; without the store it ends with ErrPayloadTooLarge.
func TestLongTurnWithBlobs(t *testing.T) {
	const rounds, size = 12, 300 << 10
	addr, ns := servertest.Start(t)
	dir := t.TempDir()
	blobs, err := temporal.NewBlobConverter(temporal.FileBlobs{Dir: dir}, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := sdkclient.Dial(sdkclient.Options{HostPort: addr, Namespace: ns, DataConverter: blobs, Logger: servertest.Quiet()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Close)
	queue := "blobs-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue, DataConverter: blobs, EventPoll: 20 * time.Millisecond,
		MaxPayloadBytes: 64 << 20, MaxToolResultBytes: 1 << 20}
	startWorker(t, tc, bulkyClient(rounds, size), cfg)
	ctx, turn := startTurn(t, tc, cfg, 5*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read them all")}})
	resp, err := turn.Result(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text() != fmt.Sprintf("read %d files", rounds) {
		t.Fatalf("answer %q", resp.Text())
	}
	external := historyBytes(t, tc, turn.ID())
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) < rounds {
		t.Fatalf("%d blobs kept, %v", len(entries), err)
	}
	if external > 256<<10 {
		t.Fatalf("the history of a turn with blobs is %d bytes", external)
	}
	t.Logf("history with blobs: %d bytes, %d per round", external, external/rounds)

	// Without the blob store, the same turn cannot carry its conversation.
	plain := dial(t)
	pcfg := temporal.Config{TaskQueue: queue + "-plain", EventPoll: 20 * time.Millisecond, MaxToolResultBytes: 1 << 20}
	startWorker(t, plain, bulkyClient(rounds, size), pcfg)
	pctx, pturn := startTurn(t, plain, pcfg, 5*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read them all")}})
	if _, err := pturn.Result(pctx); !errors.Is(err, temporal.ErrPayloadTooLarge) {
		t.Fatalf("without blobs: %v, want ErrPayloadTooLarge", err)
	}
	inline := historyBytes(t, plain, pturn.ID())
	t.Logf("history without blobs, until the bound ended it: %d bytes", inline)
}

// TestBlobStores: each store keeps and returns what it is given, refuses keys the codec does
// not make, and says a missing blob does not exist.
func TestBlobStores(t *testing.T) {
	stores := map[string]temporal.BlobStore{"file": temporal.FileBlobs{Dir: t.TempDir()}}
	if url := os.Getenv("WIELD_TEST_POSTGRES_URL"); url != "" {
		pg, err := temporal.OpenPostgresBlobs(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pg.Close)
		stores["postgres"] = pg
	} else if testenv.CI() {
		t.Fatal("WIELD_TEST_POSTGRES_URL is not set; scripts/test sets it")
	}
	// A key of its own: the PostgreSQL table outlives the test.
	sum := sha256.Sum256([]byte(rand.Text()))
	key := "sha256-" + hex.EncodeToString(sum[:])
	for name, s := range stores {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, err := s.Get(ctx, key); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("get of a missing blob: %v", err)
			}
			if err := s.Put(ctx, key, []byte("hello")); err != nil {
				t.Fatal(err)
			}
			if err := s.Put(ctx, key, []byte("hello")); err != nil {
				t.Fatalf("a second put of one key: %v", err)
			}
			if b, err := s.Get(ctx, key); err != nil || string(b) != "hello" {
				t.Fatalf("get = %q, %v", b, err)
			}
			for _, bad := range []string{"../../etc/passwd", "sha256-zz", "", "sha256-" + strings.Repeat("a", 63)} {
				if err := s.Put(ctx, bad, []byte("x")); err == nil {
					t.Errorf("put of key %q accepted", bad)
				}
			}
		})
	}
}

// TestTurnContinuesAsNew: a client-loop turn of many rounds whose history bound is small goes
// on in new runs of its workflow between rounds, and ends as one turn: its answer, every
// round's messages, events and usage, its tools run once each.
func TestTurnContinuesAsNew(t *testing.T) {
	const rounds = 15
	tc := dial(t)
	queue := "can-" + rand.Text()[:8]
	cfg := temporal.Config{TaskQueue: queue, EventPoll: 20 * time.Millisecond, MaxHistoryEvents: 40}
	startWorker(t, tc, bulkyClient(rounds, 1<<10), cfg)
	ctx, turn := startTurn(t, tc, cfg, 5*time.Minute, temporal.Request{ConversationID: "", Messages: []chat.Message{chat.User("read them all")}})
	var finished int
	done := readEvents(t, ctx, turn, func(ev *client.Event) {
		if ev.Tool != nil && ev.Tool.Kind == client.ToolFinished {
			finished++
		}
	})
	if done == nil || done.Text() != fmt.Sprintf("read %d files", rounds) {
		t.Fatalf("response %+v", done)
	}
	if finished != rounds || len(done.Messages) != 2*rounds+1 || done.ModelCalls != rounds+1 {
		t.Fatalf("%d tool events, %d messages, %d model calls; want %d, %d, %d", finished, len(done.Messages), done.ModelCalls, rounds, 2*rounds+1, rounds+1)
	}
	// The first run ended by continuing as new.
	desc, err := tc.DescribeWorkflowExecution(ctx, turn.ID(), "")
	if err != nil {
		t.Fatal(err)
	}
	if first := desc.GetWorkflowExecutionInfo().GetFirstRunId(); first == desc.GetWorkflowExecutionInfo().GetExecution().GetRunId() {
		t.Fatal("the turn ran in one run")
	}
	if n := historyLength(t, tc, turn.ID()); n > 60 {
		t.Fatalf("the last run's history has %d events", n)
	}
	// The agent tree's account goes on across the runs: it counts every run's calls, and a
	// budget one model call short ends the turn however many runs it took.
	if done.Tree.ModelCalls != rounds+1 || done.Tree.ToolCalls != rounds {
		t.Fatalf("the tree spent %+v, want %d model and %d tool calls", done.Tree, rounds+1, rounds)
	}
	cfg.TaskQueue = "can-budget-" + rand.Text()[:8]
	startWorker(t, tc, bulkyClient(rounds, 1<<10, client.WithTreeBudget(client.TreeBudget{ModelCalls: rounds})), cfg)
	ctx, turn = startTurn(t, tc, cfg, 5*time.Minute, temporal.Request{Messages: []chat.Message{chat.User("read them all")}})
	if _, err := turn.Result(ctx); !errors.Is(err, client.ErrTreeBudget) {
		t.Fatalf("a budget of %d model calls: %v, want the tree's budget spent", rounds, err)
	}
}

// historyLength returns the number of events of a turn's latest run.
func historyLength(t *testing.T, tc sdkclient.Client, id string) int {
	t.Helper()
	return len(fetchHistory(t, tc, id).Events)
}
