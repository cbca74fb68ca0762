package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxMessageBytes is the default of [StdioTransport.MaxMessageBytes], the Go SDK's own
// limit.
const DefaultMaxMessageBytes = sdk.DefaultMaxLineLength

// StdioTransport serves a session over newline-delimited JSON-RPC on a reader and a writer
// (standard input and output by default), like the Go SDK's StdioTransport, but survives bad
// input. The SDK ends the session on the first frame it cannot take: one over its size limit,
// one that is not JSON, or JSON that is not a JSON-RPC message. This transport drops such a frame
// instead, answers it with a JSON-RPC error (with the request's id when it can be found, so the
// client is not left waiting), logs it, and reads on. Frames it passes on are exactly the bytes
// the client sent.
type StdioTransport struct {
	// Reader and Writer carry the messages; nil means os.Stdin and os.Stdout. They are not closed.
	Reader io.Reader
	Writer io.Writer
	// MaxMessageBytes is the largest frame accepted, without its newline. Zero means
	// DefaultMaxMessageBytes.
	MaxMessageBytes int
	// Logger receives a warning for each dropped frame (its size and the reason, never its
	// content). Nil means slog.Default().
	Logger *slog.Logger
}

// Connect implements the SDK's Transport.
func (t *StdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	r, w := t.Reader, t.Writer
	if r == nil {
		r = os.Stdin
	}
	if w == nil {
		w = os.Stdout
	}
	limit := t.MaxMessageBytes
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	logger := t.Logger
	if logger == nil {
		logger = slog.Default()
	}
	lw := &lockedWriter{w: w}
	f := &frameFilter{r: bufio.NewReaderSize(r, 64<<10), limit: limit, out: lw, logger: logger}
	lw.sent = f.sent
	// The filter bounds frames, so the SDK's own limit, which ends the session, never trips.
	return (&sdk.IOTransport{Reader: f, Writer: lw, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter serialises writes: the SDK writes each message with one Write, and the filter's
// error replies must not land in the middle of one. It shows the filter what the SDK sends.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	sent func([]byte)
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.sent != nil {
		w.sent(p)
	}
	return w.w.Write(p)
}

func (w *lockedWriter) Close() error { return nil }

// frameFilter passes on the frames of r that the SDK can take, one whole line at a time, and
// answers the others.
type frameFilter struct {
	r      *bufio.Reader
	limit  int
	out    io.Writer
	logger *slog.Logger
	// server, when set, names the server whose standard output the filter reads for a client:
	// bad lines are skipped and logged with their beginning, not answered, and an answer over the
	// limit becomes an error answer to its request.
	server  string
	pending []byte // the rest of a frame being handed out
	line    []byte // reused buffer
	err     error  // sticky read error

	// What the SDK's batch handling needs to know, learnt from what it sends: the negotiated
	// protocol version, and the ids of batched requests it has not answered yet.
	mu      sync.Mutex
	version string
	batched map[string]bool
}

// sent looks at a message the SDK writes: the answer to initialize names the protocol version;
// a batch of responses answers batched requests.
func (f *frameFilter) sent(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.version == "" && bytes.Contains(p, []byte(`"protocolVersion"`)) {
		var r struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(p, &r) == nil {
			f.version = r.Result.ProtocolVersion
		}
	}
	if len(f.batched) > 0 && len(p) > 0 && p[0] == '[' {
		var batch []struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(p, &batch) == nil {
			for _, r := range batch {
				delete(f.batched, string(r.ID))
			}
		}
	}
}

// batchesUntil is the protocol version from which the SDK refuses batches, ending the session.
const batchesUntil = "2025-06-18"

// checkBatch reports why the SDK would end the session on a batch of these messages, or "".
func (f *frameFilter) checkBatch(msgs []jsonrpc.Message) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.version >= batchesUntil {
		return fmt.Sprintf("invalid request: protocol version %s has no batches; send one message per line", f.version)
	}
	ids := map[string]bool{}
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		id, _ := json.Marshal(req.ID.Raw())
		if ids[string(id)] || f.batched[string(id)] {
			return "invalid request: a batch reuses a request id (notifications count as the null id)"
		}
		ids[string(id)] = true
	}
	if f.batched == nil {
		f.batched = map[string]bool{}
	}
	for id := range ids {
		f.batched[id] = true
	}
	return ""
}

func (f *frameFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.pending = f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *frameFilter) Close() error { return nil }

// next returns the next acceptable frame with its newline, or nil after answering a bad one or
// reaching the end of input (f.err is then set).
func (f *frameFilter) next() []byte {
	f.line = f.line[:0]
	for {
		chunk, err := f.r.ReadSlice('\n')
		if len(f.line)+len(chunk) > f.limit+2 { // room for "\r\n"
			return f.oversized(append(f.line, chunk...), err)
		}
		f.line = append(f.line, chunk...)
		if err == nil {
			break
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		f.err = err
		if len(bytes.TrimSpace(f.line)) == 0 {
			return nil
		}
		break // a last frame without a newline
	}
	frame := bytes.TrimSpace(f.line)
	if len(frame) == 0 {
		return nil
	}
	if len(frame) > f.limit {
		var sc idScanner
		sc.feed(frame)
		return f.refuseOversized(sc.result(), len(frame))
	}
	if code, msg, id := f.check(frame); code != 0 {
		if f.server != "" {
			f.logger.Warn("mcp: skipped a line of the server's standard output that is not a JSON-RPC message",
				"server", f.server, "bytes", len(frame), "reason", msg, "line", logName(truncate(string(frame), 100)))
			return nil
		}
		f.reply(id, code, msg)
		f.logger.Warn("mcp: dropped a frame that is not a JSON-RPC message", "bytes", len(frame), "reason", msg)
		return nil
	}
	out := f.line
	if out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return bytes.Clone(out)
}

func (f *frameFilter) tooLarge() string {
	return fmt.Sprintf("message too large: the server accepts at most %d bytes", f.limit)
}

// oversized discards the rest of a frame over the limit, looking for its id on the way, and
// refuses it (see refuseOversized).
func (f *frameFilter) oversized(start []byte, err error) []byte {
	var sc idScanner
	sc.feed(start)
	n := len(start)
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = f.r.ReadSlice('\n')
		sc.feed(chunk)
		n += len(chunk)
	}
	if err != nil {
		f.err = err
	}
	return f.refuseOversized(sc.result(), n)
}

// refuseOversized drops a frame of n bytes over the limit, whose id is id (if found). A server
// answers the client with an error; a client reading a server's output hands its own side an
// error answer to the request, so that the call fails now rather than at its timeout. It returns
// what to hand on.
func (f *frameFilter) refuseOversized(id jsonrpc.ID, n int) []byte {
	if f.server == "" {
		f.reply(id, jsonrpc.CodeInvalidRequest, f.tooLarge())
		f.logger.Warn("mcp: dropped an oversized frame", "bytes", n, "limit", f.limit)
		return nil
	}
	f.logger.Warn("mcp: skipped an oversized message of the server", "server", f.server, "bytes", n, "limit", f.limit)
	if !id.IsValid() {
		return nil
	}
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("the server's message is %d bytes, over the limit of %d", n, f.limit)}})
	if err != nil {
		return nil
	}
	return append(data, '\n')
}

// reply writes a JSON-RPC error response. Notifications get none, but the filter cannot tell a
// notification from a request whose id it could not find; the specification asks for an answer
// with a null id then.
func (f *frameFilter) reply(id jsonrpc.ID, code int64, msg string) {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return
	}
	if !id.IsValid() {
		// The SDK leaves out a null id; JSON-RPC wants it present.
		data = bytes.Replace(data, []byte(`{"jsonrpc":"2.0"`), []byte(`{"jsonrpc":"2.0","id":null`), 1)
	}
	f.out.Write(append(data, '\n'))
}

// check reports whether the SDK can take frame, as its stdio reader decodes it: a JSON-RPC
// message, or a non-empty batch of them. A frame it cannot take gets a JSON-RPC error code, a
// message, and the request's id when one is found.
func (f *frameFilter) check(frame []byte) (code int64, msg string, id jsonrpc.ID) {
	if !json.Valid(frame) {
		return jsonrpc.CodeParseError, "parse error: the message is not valid JSON", jsonrpc.ID{}
	}
	if depth(frame) > maxDepth {
		return jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: nested deeper than %d levels", maxDepth), jsonrpc.ID{}
	}
	if frame[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(frame, &batch); err != nil || len(batch) == 0 {
			return jsonrpc.CodeInvalidRequest, "invalid request: an empty batch", jsonrpc.ID{}
		}
		msgs := make([]jsonrpc.Message, len(batch))
		for i, m := range batch {
			var err error
			if msgs[i], err = jsonrpc.DecodeMessage(m); err != nil {
				return jsonrpc.CodeInvalidRequest, "invalid request: a batch holds something that is not a JSON-RPC message", jsonrpc.ID{}
			}
		}
		if msg := f.checkBatch(msgs); msg != "" {
			return jsonrpc.CodeInvalidRequest, msg, jsonrpc.ID{}
		}
		return 0, "", jsonrpc.ID{}
	}
	if _, err := jsonrpc.DecodeMessage(frame); err != nil {
		var sc idScanner
		sc.feed(frame)
		return jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message", sc.result()
	}
	return 0, "", jsonrpc.ID{}
}

// maxDepth is the nesting the SDK's decoder accepts.
const maxDepth = 1000

// depth returns how deeply JSON text nests objects and arrays.
func depth(data []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			d++
			most = max(most, d)
		case '}', ']':
			d--
		}
	}
	return most
}

// idScanner finds the top-level "id" of a JSON-RPC message fed to it in pieces, in constant
// memory, whatever the message's size and wherever the id is among its members.
type idScanner struct {
	depth     int
	inString  bool
	escaped   bool
	expectKey bool   // at depth 1, the next string is a member name
	key       []byte // the member name being read (only its first bytes)
	inKey     bool
	wantValue bool // the member is "id": capture its value
	capturing bool
	value     []byte
	found     bool
	broken    bool // the id is not a string or number, or too long
}

func (s *idScanner) feed(data []byte) {
	for _, b := range data {
		if s.found || s.broken {
			return
		}
		s.step(b)
	}
}

func (s *idScanner) step(b byte) {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case b == '\\':
			s.escaped = true
		case b == '"':
			s.inString = false
		}
		if s.inKey {
			if !s.inString {
				s.inKey = false
				return
			}
			if len(s.key) < 8 {
				s.key = append(s.key, b)
			} else {
				s.key = append(s.key[:0], '?') // longer than "id"
			}
		}
		if s.capturing {
			s.add(b)
			if !s.inString {
				s.finish()
			}
		}
		return
	}
	switch b {
	case ' ', '\t', '\r', '\n':
		return
	case '"':
		s.inString = true
		if s.depth == 1 && s.expectKey {
			s.inKey, s.key = true, s.key[:0]
			return
		}
		if s.depth == 1 && s.wantValue {
			s.capturing = true
			s.add(b)
		}
		return
	case '{', '[':
		s.depth++
		if s.depth == 1 {
			s.expectKey = b == '{'
		}
		if s.capturing || (s.depth == 2 && s.wantValue) {
			s.broken = true // an object or array is no id
		}
		return
	case '}', ']':
		if s.depth == 1 && s.capturing {
			s.finish()
		}
		s.depth--
		return
	case ':':
		if s.depth == 1 {
			s.expectKey = false
			s.wantValue = string(s.key) == "id"
		}
		return
	case ',':
		if s.depth == 1 {
			if s.capturing {
				s.finish()
			}
			s.expectKey, s.wantValue = true, false
		}
		return
	}
	if s.depth == 1 && s.wantValue {
		s.capturing = true
		s.add(b)
	}
}

func (s *idScanner) add(b byte) {
	if len(s.value) >= 256 {
		s.broken = true
		return
	}
	s.value = append(s.value, b)
}

func (s *idScanner) finish() {
	s.capturing, s.wantValue = false, false
	s.found = true
}

// result returns the id found, or the null id.
func (s *idScanner) result() jsonrpc.ID {
	if !s.found || s.broken {
		return jsonrpc.ID{}
	}
	var v any
	if err := json.Unmarshal(s.value, &v); err != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}
