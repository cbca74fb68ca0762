package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestCompleteBlocks(t *testing.T) {
	for _, tt := range []struct {
		src  string
		want string // the complete prefix
	}{
		{"partial", ""},
		{"one line\n", ""},
		{"para\n\nnext", "para\n\n"},
		{"para\n\n\n\nnext", "para\n\n"},
		{"a\n\nb\n\nc", "a\n\nb\n\n"},
		{"```go\nx := 1\n\ny := 2\n", ""},
		{"```go\nx := 1\n\ny := 2\n```\n", "```go\nx := 1\n\ny := 2\n```\n"},
		{"~~~~\n```\n\n~~~~\nafter", "~~~~\n```\n\n~~~~\n"},
		{"    ```indented code, not a fence\n\nnext", "    ```indented code, not a fence\n\n"},
		{"# Title\n\n- a\n- b\n", "# Title\n\n"},
	} {
		if got := tt.src[:completeBlocks(tt.src)]; got != tt.want {
			t.Errorf("completeBlocks(%q) takes %q, want %q", tt.src, got, tt.want)
		}
	}
}

func TestRowsAbove(t *testing.T) {
	m := &markdown{width: 10}
	for _, tt := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"short", 0},
		{"0123456789", 0},  // fills the row; the cursor waits at its end
		{"0123456789a", 1}, // wraps
		{"line\n", 1},
		{"line\nline", 1},
		{"0123456789abc\nx", 2},
		{"日本語日本語", 1}, // 12 cells
		{"\n\n\n", 3},
	} {
		if got := m.rowsAbove(tt.text); got != tt.want {
			t.Errorf("rowsAbove(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

// A streamed answer ends up on the screen as its blocks rendered, whatever the chunking.
func TestMarkdownStream(t *testing.T) {
	answer := "# Title\n\nSome **bold** text that is long enough to wrap on a narrow terminal of forty columns.\n\n" +
		"```go\nfunc main() {}\n```\n\n- one\n- two\n"
	var whole bytes.Buffer
	md, err := newMarkdown(&whole, 40, 30, "notty")
	if err != nil {
		t.Fatal(err)
	}
	md.write(answer)
	md.flush()
	want := screen(whole.String(), 40)
	for _, size := range []int{1, 3, 7, 50} {
		var out bytes.Buffer
		md, _ := newMarkdown(&out, 40, 30, "notty")
		for i := 0; i < len(answer); i += size {
			md.write(answer[i:min(i+size, len(answer))])
		}
		md.flush()
		if got := screen(out.String(), 40); got != want {
			t.Errorf("chunks of %d:\n%s\nwant\n%s", size, got, want)
		}
	}
	if strings.Contains(want, "**bold**") == strings.Contains(want, "bold text") && !strings.Contains(want, "func main() {}") {
		t.Errorf("rendered:\n%s", want)
	}
	for _, line := range strings.Split(want, "\n") {
		if len([]rune(line)) > 40 {
			t.Errorf("a line is wider than the terminal: %q", line)
		}
	}
}

// A block taller than the screen is rendered whole all the same: held, not shown raw, once it
// nears the screen's height, and never half rendered.
func TestMarkdownTallBlock(t *testing.T) {
	var out bytes.Buffer
	md, _ := newMarkdown(&out, 40, 5, "notty")
	// Streamed line by line, as a model sends it.
	var src strings.Builder
	src.WriteString("Some **bold** words.\n\n")
	for i := range 30 {
		fmt.Fprintf(&src, "- item **%d**\n", i)
	}
	src.WriteString("\n```go\nx := 1\n\ny := 2\nz := 3\nw := 4\nv := 5\n```\n\n# after\n")
	for _, line := range strings.SplitAfter(src.String(), "\n") {
		md.write(line)
	}
	md.end()
	got := screen(out.String(), 40)
	if strings.Contains(got, "- item") || strings.Contains(got, "```") || strings.Contains(got, "…") {
		t.Fatalf("raw Markdown left on the screen:\n%s", got)
	}
	if strings.Count(got, "• item") != 30 || !strings.Contains(got, "x := 1") || !strings.Contains(got, "v := 5") || !strings.Contains(got, "# after") {
		t.Fatalf("screen:\n%s", got)
	}
	// Erasing never reaches above the screen.
	for n := 5; n < 40; n++ {
		if strings.Contains(out.String(), "\x1b["+strconv.Itoa(n)+"A") {
			t.Fatalf("moved %d rows up on a screen of 5: %q", n, out.String())
		}
	}
}

// An answer cut short while a tall block is held shows that block as it came.
func TestMarkdownTallBlockAbandoned(t *testing.T) {
	var out bytes.Buffer
	md, _ := newMarkdown(&out, 40, 5, "notty")
	for i := range 10 {
		md.write(fmt.Sprintf("- item %d\n", i))
	}
	md.abandon()
	if got := screen(out.String(), 40); !strings.Contains(got, "- item 0") || !strings.Contains(got, "- item 9") {
		t.Fatalf("screen:\n%s", got)
	}
}

// An answer cut short stays as shown, its line ended.
func TestMarkdownAbandon(t *testing.T) {
	var out bytes.Buffer
	md, _ := newMarkdown(&out, 40, 20, "dark")
	md.write("Counting: one,")
	md.abandon()
	if out.String() != "Counting: one,\n" {
		t.Fatalf("%q", out.String())
	}
}

// Each answer starts without a blank line; blocks within one are apart.
func TestMarkdownAnswersApart(t *testing.T) {
	var out bytes.Buffer
	md, _ := newMarkdown(&out, 40, 20, "notty")
	md.write("one\n\ntwo")
	md.end()
	out.WriteString("> next question\n")
	md.write("three")
	md.end()
	if got := screen(out.String(), 40); got != "  one\n\n  two\n> next question\n  three" {
		t.Fatalf("screen:\n%s", got)
	}
}
