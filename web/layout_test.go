package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/tool"
)

// layoutProblems lists, for the page as it stands, what is wider than the window and the
// controls that cannot be reached: outside the window across, of no size, or covered by
// something else once scrolled to.
const layoutProblems = `(() => {
  const out = [], W = document.documentElement.clientWidth;
  const name = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    (e.dataset.tool ? "[" + e.dataset.tool + "]" : "") + (e.textContent ? " «" + e.textContent.trim().slice(0, 30) + "»" : "");
  if (document.documentElement.scrollWidth > W) {
    out.push("the page is " + document.documentElement.scrollWidth + " px wide in a window of " + W);
    // Name the widest culprits, the deepest first.
    const wide = [...document.body.querySelectorAll("*")].filter((e) => e.getBoundingClientRect().right > W + 1 || e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX === "visible");
    for (const e of wide.slice(-5)) out.push("  wide: " + name(e) + " " + Math.round(e.getBoundingClientRect().right) + " scrollWidth " + e.scrollWidth);
  }
  // Whatever is not inside a box that scrolls on its own must fit across.
  const scrolls = (e) => { for (let p = e.parentElement; p; p = p.parentElement) { const s = getComputedStyle(p); if (s.overflowX === "auto" || s.overflowX === "scroll" || s.overflowX === "hidden") return true; } return false; };
  for (const e of document.body.querySelectorAll("*")) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.right > W + 1 || r.left < -1) && !scrolls(e)) out.push(name(e) + " spans " + Math.round(r.left) + "–" + Math.round(r.right) + " of " + W);
  }
  for (const e of document.querySelectorAll("button, input, textarea, select, summary, a[href]")) {
    if (e.closest("[hidden]") || getComputedStyle(e).visibility === "hidden") continue;
    e.scrollIntoView({ block: "center", inline: "center" });
    const r = e.getBoundingClientRect();
    if (r.width < 8 || r.height < 8) { out.push(name(e) + " is " + Math.round(r.width) + "×" + Math.round(r.height)); continue; }
    if (r.left < 0 || r.right > W + 1) { out.push(name(e) + " lies outside the window: " + Math.round(r.left) + "–" + Math.round(r.right)); continue; }
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!at || (at !== e && !e.contains(at) && !(e.labels && [...e.labels].includes(at)))) out.push(name(e) + " is covered by " + (at ? name(at) : "nothing"));
  }
  window.scrollTo(0, 0);
  return out;
})()`

// The page reads at 1280×800 and at a phone's 390×844 with everything on it: a turn's calls
// with long arguments and results, an approval with its form, the timeline, both panels open.
// Nothing is wider than the window and every control can be reached; the screenshots are kept.
func TestPageLayout(t *testing.T) {
	long := strings.Repeat("/a-rather-long-directory-name", 12) + "/file.txt"
	unbroken := strings.Repeat("x", 400)
	f := newFixture(t, []tool.Tool{
		chattest.NewTool("read_a_file_with_a_long_tool_name_for_the_layout", func(context.Context, string) (string, error) { return unbroken, nil }).
			WithMetadata(tool.Metadata{ReadOnly: true}),
	},
		chattest.Calls(chat.ToolCall{ID: "r1", Name: "read_a_file_with_a_long_tool_name_for_the_layout", Arguments: fmt.Sprintf(`{"path":%q}`, long)}).WithText(unbroken).WithUsage(1200, 40),
		chattest.Calls(chat.ToolCall{ID: "d1", Name: "delete_file", Arguments: fmt.Sprintf(`{"path":%q,"copies":2}`, long)}).WithUsage(1500, 20))
	for _, size := range []struct{ w, h int }{{1280, 800}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			c := browser(t, size.w, size.h)
			must(t, c, chromedp.Navigate(f.url()), chromedp.WaitVisible("body[data-ready]", chromedp.ByQuery))
			if size.w == 1280 { // the turn once; the second size opens its session
				must(t, c, ask("Read "+long+" and then delete it "+unbroken), waitText(".approval", "Run delete_file?"))
			} else {
				var id string
				must(t, c, chromedp.Click("#tab-sessions", chromedp.ByQuery), chromedp.WaitVisible("#session-list [data-session]", chromedp.ByQuery),
					chromedp.AttributeValue("#session-list [data-session]", "data-session", &id, nil, chromedp.ByQuery),
					chromedp.Click("#session-list [data-session]", chromedp.ByQuery), waitText(".approval", "Run delete_file?"),
					chromedp.Click("#tab-sessions", chromedp.ByQuery))
			}
			must(t, c, chromedp.Click(".approval .edit", chromedp.ByQuery), chromedp.WaitVisible(".schema-form", chromedp.ByQuery),
				chromedp.Click("#tab-sessions", chromedp.ByQuery), chromedp.Click("#tab-tools", chromedp.ByQuery),
				chromedp.WaitVisible(`#tool-list [data-tool="write_note"]`, chromedp.ByQuery),
				chromedp.Click(`#tool-list [data-tool="write_note"]`, chromedp.ByQuery), chromedp.WaitVisible("#tool-call form", chromedp.ByQuery),
				chromedp.Evaluate(`document.activeElement.blur()`, nil))
			var problems []string
			must(t, c, chromedp.Evaluate(layoutProblems, &problems))
			screenshot(t, c, fmt.Sprintf("layout-%dx%d", size.w, size.h))
			if len(problems) > 0 {
				t.Errorf("at %d×%d:\n%s", size.w, size.h, strings.Join(problems, "\n"))
			}
		})
	}
}
