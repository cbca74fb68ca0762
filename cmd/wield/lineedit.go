package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/term"
)

// The interactive chat reads its input with golang.org/x/term's Terminal: a line editor (cursor
// keys, Home/End, Ctrl-A/E/K/U/W, Alt-arrows by word), a history behind Up and Down, bracketed
// paste, and a Write that redraws the prompt after output arriving while the user types. wield
// adds what a chat needs around it: the history kept in a file, questions of several lines (a
// line ending in \, or a paste), and Ctrl-C told apart from Ctrl-D.

// errEditorInterrupt is Ctrl-C at an empty prompt: the user wants out.
var errEditorInterrupt = errors.New("interrupted")

// errCtrlC is how the input filter tells ReadLine that Ctrl-C was pressed.
var errCtrlC = errors.New("ctrl-c")

const (
	promptFirst = "> "
	promptMore  = "… "
	// keyInterrupt stands for Ctrl-C inside the Terminal, which would otherwise treat it as the
	// end of input: an unprintable key the Terminal passes to its AutoCompleteCallback.
	keyInterrupt = 0x1c
	// historyLimit is how many entries the history file keeps.
	historyLimit = 1000
)

// lineEditor reads the questions of an interactive chat from a terminal.
type lineEditor struct {
	in   *os.File
	out  io.Writer
	t    *term.Terminal
	keys *keyFilter
	hist *fileHistory

	// complete, when set, completes the word before the cursor on Tab: the new line and cursor
	// position, or false to leave the line as it is.
	complete func(line string, pos int) (string, int, bool)

	mu          sync.Mutex
	interrupted bool   // Ctrl-C was pressed in the line being read
	cutLine     string // the line Ctrl-C discarded
}

// newLineEditor makes the editor on standard input, drawing on standard error.
func (a *app) newLineEditor() (*lineEditor, error) {
	in, ok := a.stdin.(*os.File)
	if !ok {
		return nil, errors.New("the line editor needs a terminal")
	}
	e := &lineEditor{in: in, out: a.stderr}
	e.keys = &keyFilter{r: in, pending: func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		return e.interrupted
	}}
	e.t = term.NewTerminal(struct {
		io.Reader
		io.Writer
	}{e.keys, a.stderr}, promptFirst)
	e.t.AutoCompleteCallback = e.onKey
	e.hist = &fileHistory{}
	if dir, err := a.stateDir(); err == nil {
		e.hist.load(filepath.Join(dir, "history"))
	}
	e.t.History = e.hist
	return e, nil
}

// onKey sees the keys the Terminal does not handle itself; it takes Ctrl-C, and Tab to complete.
func (e *lineEditor) onKey(line string, pos int, key rune) (string, int, bool) {
	if key == '\t' && e.complete != nil {
		return e.complete(line, pos)
	}
	if key != keyInterrupt {
		return "", 0, false
	}
	e.mu.Lock()
	e.interrupted, e.cutLine = true, line
	e.mu.Unlock()
	return "", 0, true
}

// takeCut returns the line Ctrl-C discarded and clears the interrupt.
func (e *lineEditor) takeCut() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	cut := e.cutLine
	e.interrupted, e.cutLine = false, ""
	return cut
}

// read reads one question: lines ending in \ and pasted lines go on to the next line, the first
// line typed without a \ ends it. Ctrl-C drops what was typed and starts again, or at an empty
// prompt returns errEditorInterrupt; Ctrl-D at an empty prompt returns io.EOF.
func (e *lineEditor) read(ctx context.Context) (string, error) {
	return e.raw(ctx, e.readLines)
}

// ask reads the answer to a question, on one line: prompt first, then prefill as if typed, for
// the user to edit. Answers are not kept in the history. Ctrl-C returns errEditorInterrupt,
// whatever was typed; Ctrl-D at an empty line returns io.EOF.
func (e *lineEditor) ask(ctx context.Context, prompt, prefill string) (string, error) {
	return e.raw(ctx, func() (string, error) {
		e.t.SetPrompt(prompt)
		e.keys.inject(prefill)
		defer e.keys.inject("")
		line, err := e.t.ReadLine()
		if errors.Is(err, term.ErrPasteIndicator) {
			err = nil
		}
		switch {
		case errors.Is(err, errCtrlC):
			cut := e.takeCut()
			e.t.SetPrompt(promptFirst)
			e.t.Write([]byte(prompt + cut + "^C\n"))
			return "", errEditorInterrupt
		case errors.Is(err, io.EOF):
			io.WriteString(e.out, "\r\n")
			return "", io.EOF
		case err != nil:
			return "", err
		}
		return line, nil
	})
}

// raw runs read, which reads from the Terminal, with the terminal in raw mode, until it returns
// or ctx ends.
func (e *lineEditor) raw(ctx context.Context, read func() (string, error)) (string, error) {
	fd := int(e.in.Fd())
	state, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(fd, state)
	if w, h, err := term.GetSize(fd); err == nil {
		e.t.SetSize(w, h)
	}
	e.t.SetBracketedPasteMode(true)
	defer e.t.SetBracketedPasteMode(false)

	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := read()
		done <- result{text, err}
	}()
	select {
	case r := <-done:
		return r.text, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (e *lineEditor) readLines() (string, error) {
	var lines []string
	e.t.SetPrompt(promptFirst)
	for {
		line, err := e.t.ReadLine()
		pasted := errors.Is(err, term.ErrPasteIndicator)
		if pasted {
			err = nil
		}
		switch {
		case errors.Is(err, errCtrlC):
			cut := e.takeCut()
			if cut == "" && len(lines) == 0 {
				io.WriteString(e.out, "\r\n")
				return "", errEditorInterrupt
			}
			// As a shell does: the line stays on the screen, marked, and a new prompt starts.
			prompt := promptFirst
			if len(lines) > 0 {
				prompt = promptMore
			}
			lines = nil
			e.t.SetPrompt(promptFirst)
			e.t.Write([]byte(prompt + cut + "^C\n"))
			continue
		case errors.Is(err, io.EOF):
			io.WriteString(e.out, "\r\n")
			if len(lines) > 0 {
				return e.keep(strings.Join(lines, "\n")), nil
			}
			return "", io.EOF
		case err != nil:
			return "", err
		}
		more, ok := strings.CutSuffix(line, `\`)
		switch {
		case pasted:
			lines = append(lines, line)
		case ok:
			lines = append(lines, more)
		default:
			return e.keep(strings.Join(append(lines, line), "\n")), nil
		}
		e.t.SetPrompt(promptMore)
	}
}

// keep adds a question to the history, unless it starts with a space (as shells do, a way to
// keep something out of the history file).
func (e *lineEditor) keep(text string) string {
	if strings.TrimSpace(text) != "" && !strings.HasPrefix(text, " ") {
		e.hist.keep(text)
	}
	return text
}

// Write shows p on standard error, redrawing the prompt and what was typed when a question is
// being read.
func (e *lineEditor) Write(p []byte) (int, error) {
	return e.t.Write(p)
}

func (e *lineEditor) close() {
	e.hist.save()
}

// keyFilter passes the terminal's input on, turning Ctrl-C into keyInterrupt, and ends the read
// with errCtrlC once the Terminal has seen it. Text injected comes first, as if typed.
type keyFilter struct {
	r       io.Reader
	pending func() bool

	mu       sync.Mutex
	injected []byte
}

// inject makes text the next input, replacing what was injected and not yet read. text must be
// printable: each of its bytes is a key.
func (k *keyFilter) inject(text string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.injected = []byte(text)
}

func (k *keyFilter) Read(p []byte) (int, error) {
	if k.pending() {
		return 0, errCtrlC
	}
	k.mu.Lock()
	if len(k.injected) > 0 {
		n := copy(p, k.injected)
		k.injected = k.injected[n:]
		k.mu.Unlock()
		return n, nil
	}
	k.mu.Unlock()
	n, err := k.r.Read(p)
	for i := range n {
		if p[i] == 0x03 {
			p[i] = keyInterrupt
		}
	}
	return n, err
}

// fileHistory is the Terminal's history, kept in a file of one JSON string per line (so entries
// of several lines survive). The Terminal adds every line read; the editor keeps whole questions
// instead, and shows the ones of several lines joined by spaces, the way a line editor can show
// them.
type fileHistory struct {
	mu      sync.Mutex
	path    string
	entries []string // oldest first
	added   int      // entries added since loading
}

func (h *fileHistory) load(path string) {
	h.path = path
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.entries = append(h.entries, s)
		}
	}
	if len(h.entries) > historyLimit {
		h.entries = h.entries[len(h.entries)-historyLimit:]
	}
}

// Add is called by the Terminal for every line; whole questions are kept by keep instead.
func (h *fileHistory) Add(string) {}

// Len is the number of entries.
func (h *fileHistory) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

// At returns an entry, 0 being the newest, on one line.
func (h *fileHistory) At(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.ReplaceAll(h.entries[len(h.entries)-1-i], "\n", " ")
}

func (h *fileHistory) keep(s string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.entries); n > 0 && h.entries[n-1] == s {
		return
	}
	h.entries = append(h.entries, s)
	h.added++
	if len(h.entries) > historyLimit {
		h.entries = h.entries[1:]
	}
	h.save0()
}

// save writes the history; another chat's entries written meanwhile are kept.
func (h *fileHistory) save() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.save0()
}

func (h *fileHistory) save0() {
	if h.path == "" || h.added == 0 {
		return
	}
	mine := h.entries[max(0, len(h.entries)-h.added):]
	// Merge with the file as it is now: chats running side by side each add their own.
	var merged fileHistory
	merged.load(h.path)
	all := merged.entries
	for _, s := range mine {
		if len(all) == 0 || all[len(all)-1] != s {
			all = append(all, s)
		}
	}
	if len(all) > historyLimit {
		all = all[len(all)-historyLimit:]
	}
	var b bytes.Buffer
	for _, s := range all {
		line, _ := json.Marshal(s)
		b.Write(line)
		b.WriteByte('\n')
	}
	if os.MkdirAll(filepath.Dir(h.path), 0o700) != nil {
		return
	}
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, b.Bytes(), 0o600) == nil && os.Rename(tmp, h.path) == nil {
		h.added = 0
		h.entries = all
	}
}
