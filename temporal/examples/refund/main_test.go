package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/memory/sqlstore"
	"github.com/wield-ai/wield/temporal/internal/servertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servertest.Stop()
	os.Exit(code)
}

// runDemo runs the demo on the test server with decide and returns its output and the ledger.
func runDemo(t *testing.T, decide decider) (string, *Ledger, *sqlstore.Store) {
	tc := servertest.Dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	store, err := sqlstore.OpenSQLite(ctx, filepath.Join(t.TempDir(), "chat.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	cfg := config(memory.NewWindow(store, 50))
	ledger := &Ledger{}
	agent, err := newAgent(scriptedModel(), ledger)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := workers(tc, agent, cfg, true, true)
	defer stop()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ask(ctx, tc, cfg, "Please refund order A17, the concert was cancelled.", decide, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// The turn's id changes from run to run.
	first, rest, _ := strings.Cut(out.String(), "\n")
	if !strings.HasPrefix(first, "turn turn_") {
		t.Fatalf("first line %q", first)
	}
	return rest, ledger, store
}

func TestApprovedRefund(t *testing.T) {
	out, ledger, store := runDemo(t, approveAll)
	want := `model: Let me look order A17 up.
run   lookup_order {"order":"A17"}
done  lookup_order: order A17: 2 concert tickets, 40 euros, paid; the concert was cancelled
model: The concert was cancelled: I will refund the 40 euros.
wait  refund {"order":"A17","amount":40}: approve
run   refund {"order":"A17","amount":40}
done  refund: refunded 40 euros for order A17
model: Done: refunded 40 euros for order A17.
answer (answer, 3 model calls): Done: refunded 40 euros for order A17.
`
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	if got := ledger.Refunds(); !slices.Equal(got, []string{"A17 40"}) {
		t.Fatalf("refunds = %v", got)
	}
	// The conversation, kept by the workers' activities: the question, both rounds, the answer.
	msgs, err := store.Messages(context.Background(), "customer-ada")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 6 || msgs[0].Content != "Please refund order A17, the concert was cancelled." || msgs[5].Content != "Done: refunded 40 euros for order A17." {
		t.Fatalf("conversation = %+v", msgs)
	}
}

func TestRejectedRefund(t *testing.T) {
	out, ledger, _ := runDemo(t, func(p client.PendingCall) client.Decision { return p.Reject("Refunds over 30 euros need a manager.") })
	if !strings.Contains(out, "wait  refund {\"order\":\"A17\",\"amount\":40}: reject\n") ||
		!strings.HasSuffix(out, "answer (answer, 3 model calls): I could not refund the order: Refunds over 30 euros need a manager.\n") {
		t.Fatalf("output:\n%s", out)
	}
	if got := ledger.Refunds(); len(got) != 0 {
		t.Fatalf("refunds = %v", got)
	}
}
