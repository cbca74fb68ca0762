package web_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/tool"
)

var updateReadmeShot = flag.Bool("update-readme-screenshot", false, "write the README's screenshot of the page, "+readmeShot)

// readmeShot is the README's picture of the page, relative to this package.
const readmeShot = "../docs/web.png"

// The README's screenshot is made by this test: a turn with two calls side by side, their
// results, the answer and the turn's timeline, the sessions listed. Run with
// -update-readme-screenshot to write it; every run checks that the page shows it all and that the
// picture stays small.
func TestReadmeScreenshot(t *testing.T) {
	slow := func(name, result string, d time.Duration) tool.Tool {
		return chattest.NewTool(name, func(ctx context.Context, _ string) (string, error) {
			time.Sleep(d)
			return result, nil
		}).WithMetadata(tool.Metadata{ReadOnly: true})
	}
	f := newFixture(t, []tool.Tool{
		slow("read_file", "## Unreleased\n- wield web: a timeline of each turn\n- approvals for an old session's turn", 60*time.Millisecond),
		slow("search_issues", `[{"number": 29, "title": "See the turn"}]`, 90*time.Millisecond),
	},
		chattest.Calls(chat.ToolCall{ID: "r", Name: "read_file", Arguments: `{"path":"CHANGELOG.md"}`},
			chat.ToolCall{ID: "s", Name: "search_issues", Arguments: `{"query":"timeline","state":"closed"}`}).WithUsage(812, 64),
		chattest.Text("The unreleased changes add a timeline of each turn to wield web and approval buttons for a session's stopped turn; issue 29 tracks both.").WithUsage(1024, 41))
	f.model.delay = 120 * time.Millisecond
	for _, id := range []string{"chat-20250301-101500-a1b2", "chat-20250228-174200-c3d4"} {
		if err := f.repo.Append(context.Background(), id, chat.User("an earlier question"), chat.Assistant("its answer")); err != nil {
			t.Fatal(err)
		}
	}
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()), chromedp.Click("#tab-sessions", chromedp.ByQuery),
		ask("What changed since the last release?"),
		waitText(".msg.assistant", "issue 29 tracks both."), waitText(".timeline summary", "2 model calls, 2 tool calls"),
		waitText(`.call[data-tool="search_issues"] .state`, "done in"),
		chromedp.Evaluate(`document.activeElement.blur()`, nil))
	var png []byte
	must(t, c, chromedp.CaptureScreenshot(&png))
	if len(png) > 150<<10 {
		t.Fatalf("the screenshot is %d KB, over 150", len(png)>>10)
	}
	if !*updateReadmeShot {
		return
	}
	if err := os.WriteFile(filepath.FromSlash(readmeShot), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s, %d KB", readmeShot, len(png)>>10)
}
