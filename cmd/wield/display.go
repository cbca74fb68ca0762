package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dustin/go-humanize"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/cmd/wield/internal/builtin"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// display shows a chat as it happens: the answer's text on stdout as it arrives, each tool call
// on stderr as it runs, and a spinner while waiting when stderr is a terminal. With JSON on, it
// prints one JSON event per line on stdout instead.
type display interface {
	// waiting says the model is being asked.
	waiting()
	// event shows one event of a streamed turn.
	event(ev *client.Event)
	// progress shows a running tool's progress report.
	progress(p tool.Progress)
	// alarm shows a built-in alarm ringing.
	alarm(a builtin.Alarm)
	// done ends a turn that succeeded.
	done(resp *client.Response)
	// failed ends a turn that failed with err; it returns err for the caller to report.
	failed(err error) error
	// stopped ends a turn the user interrupted.
	stopped()
	// pause makes way for a question to the user: the turn stopped for approval.
	pause()
	// decided shows a decision on a call that waited for one.
	decided(d decision)
	// close stops the spinner.
	close()
}

// ansi escapes, used only when colors are on.
const (
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiReset  = "\x1b[0m"
	clearLine  = "\r\x1b[K"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// textOptions say how a textDisplay shows a chat.
type textOptions struct {
	// terminal: stderr is a terminal (spinner, lines rewritten in place, usage line).
	terminal bool
	// color: ANSI colors on stderr.
	color bool
	// verbose: tool lines and the usage line also when stderr is not a terminal.
	verbose bool
	// safe: stdout is a terminal, so the model's text is stripped of control characters.
	safe bool
	// markdown, when set, renders the answer on stdout.
	markdown *markdown
	// showResults prints each tool's result, shortened, under its line (--show-results).
	showResults bool
}

// textDisplay writes the answer to out and tool progress to errw.
type textDisplay struct {
	mu       sync.Mutex
	out, err io.Writer
	textOptions
	midLine bool // out has text without its line's end

	spin     string // what the spinner waits for; "" when stopped
	tool     string // the running tool's spinner label, which progress reports extend
	frame    int
	stopTick chan struct{}
	ticking  bool
}

func newTextDisplay(out, errw io.Writer, o textOptions) *textDisplay {
	return &textDisplay{out: out, err: errw, textOptions: o}
}

// quiet reports whether progress lines are left out: stderr is not a terminal and no one asked
// for them.
func (d *textDisplay) quiet() bool { return !d.terminal && !d.verbose && !d.showResults }

func (d *textDisplay) paint(code, s string) string {
	if !d.color {
		return s
	}
	return code + s + ansiReset
}

// startSpinner shows label with a spinner until stopSpinner; terminals only.
func (d *textDisplay) startSpinner(label string) {
	if !d.terminal {
		return
	}
	d.spin = label
	d.drawSpinner()
	if !d.ticking {
		d.ticking = true
		d.stopTick = make(chan struct{})
		go d.tick(d.stopTick)
	}
}

func (d *textDisplay) tick(stop chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			d.mu.Lock()
			if d.spin != "" {
				d.frame = (d.frame + 1) % len(spinnerFrames)
				d.drawSpinner()
			}
			d.mu.Unlock()
		}
	}
}

func (d *textDisplay) drawSpinner() {
	fmt.Fprintf(d.err, "%s%s %s", clearLine, spinnerFrames[d.frame], d.spin)
}

// stopSpinner erases the spinner's line.
func (d *textDisplay) stopSpinner() {
	if d.spin == "" {
		return
	}
	d.spin = ""
	fmt.Fprint(d.err, clearLine)
}

// endLine finishes the answer's text before something else is shown: renders what Markdown is
// pending and ends the line.
func (d *textDisplay) endLine() { d.finishLine((*markdown).flush) }

// finishLine ends the line of the answer's text: through finish when Markdown renders it, else
// by ending the raw line if one is open.
func (d *textDisplay) finishLine(finish func(*markdown)) {
	if d.markdown != nil {
		finish(d.markdown)
		d.midLine = false
		return
	}
	if d.midLine {
		fmt.Fprintln(d.out)
		d.midLine = false
	}
}

func (d *textDisplay) waiting() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.midLine {
		d.startSpinner(d.paint(ansiDim, "thinking"))
	}
}

func (d *textDisplay) event(ev *client.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case ev.Chunk != nil:
		text := ev.Text()
		if text == "" || ev.Agent() != "" {
			return // a sub-agent's text (a remote agent's progress) is its tool's result, not the answer
		}
		d.stopSpinner()
		if d.safe {
			text = safeText(text)
		}
		if d.markdown != nil {
			d.markdown.write(text)
		} else {
			io.WriteString(d.out, text)
		}
		d.midLine = !strings.HasSuffix(text, "\n")
	case ev.Tool != nil:
		t := ev.Tool
		name, args := safeLine(t.Call.Name), shortArgs(t.Call.Arguments)
		line := name + " " + d.paint(ansiDim, args)
		switch t.Kind {
		case client.ToolStarted:
			if d.quiet() {
				return
			}
			d.endLine()
			if d.terminal {
				d.tool = line
				d.startSpinner(line)
			} else {
				fmt.Fprintf(d.err, "tool %s %s\n", name, args)
			}
		case client.ToolFinished:
			if d.quiet() {
				return
			}
			elapsed := roundElapsed(t.Elapsed)
			if !d.terminal {
				if err := t.Err(); err != nil {
					fmt.Fprintf(d.err, "tool %s failed after %v: %s\n", name, elapsed, safeLine(oneLine(err.Error(), 200)))
				} else {
					fmt.Fprintf(d.err, "tool %s done in %v\n", name, elapsed)
				}
				d.showResult(t.Result)
				d.showParts(t.Result.Parts)
				return
			}
			d.stopSpinner()
			d.tool = ""
			if err := t.Err(); err != nil {
				fmt.Fprintf(d.err, "%s %s %s %s\n", d.paint(ansiRed, "✗"), line, d.paint(ansiDim, elapsed.String()), d.paint(ansiRed, safeLine(oneLine(err.Error(), 200))))
			} else {
				fmt.Fprintf(d.err, "%s %s %s\n", d.paint(ansiGreen, "✓"), line, d.paint(ansiDim, elapsed.String()))
			}
			d.showResult(t.Result)
			d.showParts(t.Result.Parts)
			d.startSpinner(d.paint(ansiDim, "thinking"))
		}
	case ev.Compaction != nil:
		if d.quiet() {
			return
		}
		d.endLine()
		d.stopSpinner()
		fmt.Fprintln(d.err, d.paint(ansiDim, compactionLine(ev.Compaction)))
		if d.terminal {
			d.startSpinner(d.paint(ansiDim, "thinking"))
		}
	}
}

// Bounds of a result --show-results prints: lines, and characters of each.
const (
	shownResultLines = 8
	shownResultWidth = 160
)

// showResult prints the text of a tool's result, shortened, with --show-results.
func (d *textDisplay) showResult(r chat.ToolResult) {
	if !d.showResults || r.Content == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(r.Content, "\n"), "\n")
	more := len(lines) - shownResultLines
	if more > 0 {
		lines = lines[:shownResultLines]
	}
	for i, line := range lines {
		mark := "  "
		if i == 0 {
			mark = "← "
		}
		fmt.Fprintf(d.err, "  %s%s\n", mark, d.paint(ansiDim, safeLine(clipLine(line, shownResultWidth))))
	}
	if more > 0 {
		fmt.Fprintf(d.err, "    %s\n", d.paint(ansiDim, fmt.Sprintf("… %d more lines", more)))
	}
}

// clipLine shortens a line to n characters.
func clipLine(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// showParts shows the images, documents and audio of a tool's result, one short line each.
func (d *textDisplay) showParts(parts []content.Part) {
	for _, p := range mediaParts(parts) {
		fmt.Fprintf(d.err, "  %s\n", d.paint(ansiDim, partLine(p)))
	}
}

func (d *textDisplay) progress(p tool.Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.terminal || d.tool == "" || d.spin == "" {
		return
	}
	d.spin = d.tool + " " + d.paint(ansiDim, progressText(p))
	d.drawSpinner()
}

// progressText shows a progress report: "3/10 copying files", "40%", "step 3".
func progressText(p tool.Progress) string {
	var s string
	switch {
	case p.Total > 0:
		s = strconv.FormatFloat(p.Progress, 'f', -1, 64) + "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	case p.Progress > 0:
		s = strconv.FormatFloat(p.Progress, 'f', -1, 64)
	}
	if m := safeLine(oneLine(p.Message, 60)); m != "" {
		s = strings.TrimSpace(s + " " + m)
	}
	return s
}

func (d *textDisplay) alarm(a builtin.Alarm) {
	d.mu.Lock()
	defer d.mu.Unlock()
	spin := d.spin
	d.stopSpinner()
	d.endLine()
	label := safeLine(a.Label)
	if label == "" {
		label = "alarm"
	}
	bell := ""
	if d.terminal {
		bell = "\a"
	}
	fmt.Fprintf(d.err, "%s⏰ %s (%s)\n", bell, label, a.At.Format(time.Kitchen))
	if spin != "" {
		d.startSpinner(spin)
	}
}

func (d *textDisplay) done(resp *client.Response) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSpinner()
	d.endLine()
	if d.markdown != nil {
		d.markdown.end()
	}
	if resp == nil {
		return
	}
	if resp.Outcome == client.OutcomeIterationLimit {
		fmt.Fprintf(d.err, "wield: the model was still calling tools after %d model calls, the most one question may take; the answer may be incomplete\n", resp.ModelCalls)
	}
	if !d.quiet() {
		if u := usageLine(resp); u != "" {
			fmt.Fprintln(d.err, d.paint(ansiDim, u))
		}
	}
}

// usageLine sums up a turn's token usage: "tokens: 1,234 in (1,024 cached), 56 out".
func usageLine(resp *client.Response) string {
	u := resp.Usage
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		return ""
	}
	s := "tokens: " + humanize.Comma(int64(u.InputTokens)) + " in"
	if u.CachedInputTokens > 0 {
		s += " (" + humanize.Comma(int64(u.CachedInputTokens)) + " cached)"
	}
	s += ", " + humanize.Comma(int64(u.OutputTokens)) + " out"
	if u.ReasoningTokens > 0 {
		s += " (" + humanize.Comma(int64(u.ReasoningTokens)) + " reasoning)"
	}
	if resp.ModelCalls > 1 {
		s += ", " + strconv.Itoa(resp.ModelCalls) + " model calls"
	}
	return s
}

func (d *textDisplay) failed(err error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSpinner()
	d.abandon()
	return err
}

// abandon ends an answer cut short, leaving what was shown.
func (d *textDisplay) abandon() { d.finishLine((*markdown).abandon) }

func (d *textDisplay) stopped() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSpinner()
	d.tool = ""
	d.abandon()
	if d.terminal {
		fmt.Fprintln(d.err, d.paint(ansiDim, "(stopped)"))
	}
}

func (d *textDisplay) pause() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSpinner()
	d.tool = ""
	d.endLine()
}

// decided shows nothing: on a terminal the user's answer is on the screen, and a refusal for
// want of one is a warning of its own.
func (d *textDisplay) decided(decision) {}

func (d *textDisplay) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopSpinner()
	if d.ticking {
		close(d.stopTick)
		d.ticking = false
	}
}

// roundElapsed keeps a duration's leading digits: 14µs, 3ms, 1.25s.
func roundElapsed(d time.Duration) time.Duration {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond)
	case d < time.Second:
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

// shortArgs renders tool arguments compactly on one line, cut to a readable length.
func shortArgs(args string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(args)) == nil {
		args = b.String()
	}
	if args == "" {
		args = "{}"
	}
	return safeLine(oneLine(args, 80))
}

// oneLine puts s on one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// jsonDisplay prints one JSON event per line.
type jsonDisplay struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newJSONDisplay(out io.Writer) *jsonDisplay {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return &jsonDisplay{enc: enc}
}

// jsonEvent is one line of --json output; Type says which fields are set.
type jsonEvent struct {
	// Type is text, tool_start, progress, tool_end, approval_required (a call waits for a
	// decision), approval (the decision), interrupted (a tool asks something), alarm, done,
	// compaction (the conversation was shortened to fit the context), stopped or error.
	Type string `json:"type"`
	// Agent names the sub-agent (a remote agent's tool) whose event it is; empty for the chat's.
	Agent      string          `json:"agent,omitempty"`
	Text       string          `json:"text,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	ID         string          `json:"id,omitempty"`
	Arguments  json.RawMessage `json:"arguments,omitempty"`
	Result     string          `json:"result,omitempty"`
	DurationMS *int64          `json:"duration_ms,omitempty"`
	Error      string          `json:"error,omitempty"`
	At         string          `json:"at,omitempty"`
	Outcome    string          `json:"outcome,omitempty"`
	// Decision is approved, edited, rejected or answered.
	Decision   string        `json:"decision,omitempty"`
	ModelCalls int           `json:"model_calls,omitempty"`
	Usage      *chat.Usage   `json:"usage,omitempty"`
	Progress   *jsonProgress `json:"progress,omitempty"`
	// Parts describe the images, documents and audio of a tool's result (tool_end), not their
	// bytes.
	Parts []jsonPart `json:"parts,omitempty"`
	// Compaction says what a compaction cut, and the tokens before and after.
	Compaction *client.Compaction `json:"compaction,omitempty"`
}

// jsonPart describes a part of a tool result in a tool_end event.
type jsonPart struct {
	Kind      string `json:"kind"`
	MediaType string `json:"mediaType,omitempty"`
	Name      string `json:"name,omitempty"`
	URL       string `json:"url,omitempty"`
	Bytes     int    `json:"bytes,omitempty"`
	Width     int    `json:"width,omitempty"`
	Height    int    `json:"height,omitempty"`
}

func newJSONPart(p content.Part) jsonPart {
	j := jsonPart{Kind: string(p.Kind), MediaType: p.MediaType, Name: p.Name, URL: p.URL, Bytes: len(p.Data)}
	j.Width, j.Height, _ = imageSize(p)
	return j
}

// jsonProgress is a tool's progress report in a progress event.
type jsonProgress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

func (d *jsonDisplay) emit(e jsonEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.enc.Encode(e)
}

func (d *jsonDisplay) waiting() {}

func (d *jsonDisplay) progress(p tool.Progress) {
	d.emit(jsonEvent{Type: "progress", Progress: &jsonProgress{p.Progress, p.Total, p.Message}})
}

func (d *jsonDisplay) stopped() {
	d.emit(jsonEvent{Type: "stopped"})
}

func (d *jsonDisplay) event(ev *client.Event) {
	switch {
	case ev.Chunk != nil:
		if text := ev.Text(); text != "" {
			d.emit(jsonEvent{Type: "text", Text: text, Agent: ev.Agent()})
		}
	case ev.Tool != nil:
		t := ev.Tool
		e := jsonEvent{Tool: t.Call.Name, ID: t.Call.ID}
		if json.Valid([]byte(t.Call.Arguments)) {
			e.Arguments = json.RawMessage(t.Call.Arguments)
		}
		switch t.Kind {
		case client.ToolApprovalRequired:
			e.Type = "approval_required"
		case client.ToolInterrupted:
			e.Type = "interrupted"
			if t.Interrupt != nil {
				e.Text = t.Interrupt.Message
			}
		case client.ToolStarted:
			e.Type = "tool_start"
		case client.ToolFinished:
			e.Type = "tool_end"
			ms := t.Elapsed.Milliseconds()
			e.DurationMS = &ms
			if err := t.Err(); err != nil {
				e.Error = err.Error()
			} else {
				e.Result = t.Result.Content
			}
			for _, p := range mediaParts(t.Result.Parts) {
				e.Parts = append(e.Parts, newJSONPart(p))
			}
		default:
			return
		}
		d.emit(e)
	case ev.Compaction != nil:
		d.emit(jsonEvent{Type: "compaction", Text: compactionLine(ev.Compaction), Compaction: ev.Compaction})
	}
}

func (d *jsonDisplay) alarm(a builtin.Alarm) {
	d.emit(jsonEvent{Type: "alarm", Text: a.Label, At: a.At.Format(time.RFC3339)})
}

func (d *jsonDisplay) done(resp *client.Response) {
	e := jsonEvent{Type: "done", Text: resp.Text(), Outcome: resp.Outcome.String(), ModelCalls: resp.ModelCalls}
	if u := resp.Usage; u != (chat.Usage{}) {
		e.Usage = &u
	}
	d.emit(e)
}

func (d *jsonDisplay) failed(err error) error {
	d.emit(jsonEvent{Type: "error", Error: err.Error()})
	return err
}

func (d *jsonDisplay) pause() {}

func (d *jsonDisplay) decided(dec decision) {
	args := dec.call.Call.Arguments
	if dec.edited != "" {
		args = dec.edited
	}
	e := jsonEvent{Type: "approval", Tool: dec.call.Call.Name, ID: dec.call.Call.ID, Decision: dec.verdict}
	if json.Valid([]byte(args)) {
		e.Arguments = json.RawMessage(args)
	}
	d.emit(e)
}

func (d *jsonDisplay) close() {}
