package main

import (
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/styles"
	"github.com/mattn/go-runewidth"
)

// markdown shows an answer on a terminal as it streams, rendered as Markdown: the text of the
// block being written appears raw at once, and when the block is complete (a blank line outside
// a code fence, or the end of the answer) it is erased and printed rendered. A block about to
// outgrow the screen (which could then not be erased) is erased while it still can be, and held
// behind a one-line note until it is complete, then rendered whole: never half raw.
type markdown struct {
	out    io.Writer
	render func(string) (string, error)
	// width and height are the terminal's size in cells.
	width, height int

	pending string // the source of the blocks not yet rendered
	shown   string // what of pending is on the screen, raw
	blocks  int    // rendered blocks so far, for the blank lines between them
	tooTall bool   // the pending block nearly outgrew the screen: it is held, not shown
}

// newMarkdown returns a renderer for a terminal of the given size. style is a glamour style name
// ("dark", "light", "notty", ...) or the path of a style file.
func newMarkdown(out io.Writer, width, height int, style string) (*markdown, error) {
	if width <= 0 {
		width = 80
	}
	if height <= 0 {
		height = 24
	}
	opt := glamour.WithStandardStyle(style)
	if _, known := styles.DefaultStyles[style]; !known {
		if _, err := os.Stat(style); err == nil {
			opt = glamour.WithStylePath(style)
		} else {
			opt = glamour.WithStandardStyle(styles.DarkStyle)
		}
	}
	// The document's margins take 2 cells on each side; more than 120 columns reads badly.
	wrap := min(width, 124) - 4
	r, err := glamour.NewTermRenderer(opt, glamour.WithWordWrap(max(wrap, 20)))
	if err != nil {
		return nil, err
	}
	return &markdown{out: out, render: r.Render, width: width, height: height}, nil
}

// write adds streamed text: it renders the blocks text completes and shows the rest raw.
func (m *markdown) write(text string) {
	m.pending += text
	cut := completeBlocks(m.pending)
	if cut == 0 {
		m.showRaw(text)
		return
	}
	// A boundary needs the line feed ending a blank line, so it lies in text, past what is shown.
	done, rest := m.pending[:cut], m.pending[cut:]
	m.emit(done)
	m.pending, m.shown = rest, ""
	if rest != "" {
		m.showRaw(rest)
	}
}

// end renders what is pending at the end of an answer; the next answer starts afresh.
func (m *markdown) end() {
	m.flush()
	m.blocks = 0
}

// flush renders what is pending, before other output.
func (m *markdown) flush() {
	if m.pending != "" {
		m.emit(m.pending)
		m.pending, m.shown = "", ""
	}
}

// abandon leaves what is pending raw on the screen, ending its line: the answer was cut short.
func (m *markdown) abandon() {
	if m.tooTall {
		// What was held is printed as it came: the answer will not be rendered now.
		m.erase()
		m.shown = m.pending
		io.WriteString(m.out, m.pending)
	}
	if m.shown != "" && !strings.HasSuffix(m.shown, "\n") {
		io.WriteString(m.out, "\n")
	}
	m.pending, m.shown, m.tooTall, m.blocks = "", "", false, 0
}

func (m *markdown) showRaw(text string) {
	if m.tooTall {
		return
	}
	m.shown += text
	io.WriteString(m.out, text)
	if m.rowsAbove(m.shown) >= m.height-2 {
		// One more line and the block's start leaves the screen: erased now, it is rendered whole
		// once complete.
		m.erase()
		m.shown = holdNote
		io.WriteString(m.out, holdNote)
		m.tooTall = true
	}
}

// holdNote stands for a block held until it is complete.
const holdNote = "…"

// emit replaces the raw text of src on the screen with src rendered.
func (m *markdown) emit(src string) {
	m.tooTall = false
	m.erase()
	if strings.TrimSpace(src) == "" {
		return
	}
	out, err := m.render(src)
	if err != nil {
		out = src
	}
	out = tidy(out)
	if out == "" {
		return
	}
	if m.blocks > 0 {
		out = "\n" + out
	}
	m.blocks++
	io.WriteString(m.out, out+"\n")
}

// erase moves the cursor back to where the raw text shown started and clears below it.
func (m *markdown) erase() {
	if m.shown == "" {
		return
	}
	up := m.rowsAbove(m.shown)
	seq := "\r"
	if up > 0 {
		seq += "\x1b[" + strconv.Itoa(up) + "A"
	}
	io.WriteString(m.out, seq+"\x1b[J")
	m.shown = ""
}

// rowsAbove counts the screen rows between the start of text, printed from the first column,
// and the row the cursor is left on.
func (m *markdown) rowsAbove(text string) int {
	lines := strings.Split(text, "\n")
	rows := 0
	for i, line := range lines {
		w := runewidth.StringWidth(strings.ReplaceAll(line, "\t", "        "))
		if i < len(lines)-1 {
			rows += max(1, (w+m.width-1)/m.width)
		} else if w > 0 {
			rows += (w - 1) / m.width
		}
	}
	return rows
}

// completeBlocks returns the length of the prefix of src made of complete Markdown blocks: up to
// and including the last blank line outside a fenced code block (or the line closing one).
func completeBlocks(src string) int {
	cut, pos := 0, 0
	fence := ""
	prevText := false
	for {
		nl := strings.IndexByte(src[pos:], '\n')
		if nl < 0 {
			return cut
		}
		line := src[pos : pos+nl]
		pos += nl + 1
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])) == "" {
				fence = ""
				cut = pos
				prevText = false
			}
		case indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			c := trimmed[0]
			n := len(trimmed) - len(strings.TrimLeft(trimmed, string(c)))
			fence = strings.Repeat(string(c), n)
			prevText = true
		case strings.TrimSpace(line) == "":
			if prevText {
				cut = pos
			}
			prevText = false
		default:
			prevText = true
		}
	}
}

// trailing matches the padding glamour puts at the end of lines: spaces and color codes.
var trailing = regexp.MustCompile(`(?:[ \t]|\x1b\[[0-9;]*m)+$`)

// tidy trims the padding of rendered lines and the blank lines around them, so blocks rendered
// one by one look like one document and do not wrap when the terminal narrows.
func tidy(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if t := trailing.FindStringIndex(l); t != nil {
			reset := ""
			if strings.Contains(l[t[0]:], "\x1b[") || strings.Contains(l[:t[0]], "\x1b[") {
				reset = "\x1b[0m"
			}
			lines[i] = l[:t[0]] + reset
		}
	}
	blank := func(l string) bool { return trailing.ReplaceAllString(l, "") == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
