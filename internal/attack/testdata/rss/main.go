// Command rss makes one memory measurement of a wield program and prints its peak resident set
// (VmHWM), and with $RSS_MEMPROFILE set writes the allocation profile there: a turn carrying an attachment read with content.ReadFile ("attach FILE"), a turn whose
// tool returns a result of N bytes that goes to the next model request ("result N"), or a plain
// turn ("idle"). It talks to a server in its own process that answers in the provider's form.
// It is built with the tag of one provider (rss_anthropic, rss_openai, …) so that it weighs
// what a program on that provider alone weighs.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// A provider is what a build tag brings in: the model, and the server's answers in its form.
type api struct {
	name             string
	model            func(url string) (chat.Model, error)
	text, toolAnswer string
}

// providers holds the one provider this build brings in, by name (two for openai's APIs).
var providers = map[string]api{}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rss PROVIDER idle | attach FILE | result BYTES")
		os.Exit(2)
	}
	peak, err := run(os.Args[1], os.Args[2], os.Args[3:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "rss:", err)
		os.Exit(1)
	}
	if path := os.Getenv("RSS_MEMPROFILE"); path != "" {
		// Every allocation since the start, by where it was made: where the copies are.
		runtime.GC() // the profile holds what was allocated up to the last collection
		f, err := os.Create(path)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "rss:", err)
		}
	}
	fmt.Printf("peak %d\n", peak)
}

func run(name, kind string, args []string) (int64, error) {
	p, ok := providers[name]
	if !ok {
		return 0, fmt.Errorf("provider %q is not in this build", name)
	}
	srv := &server{p: p}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	m, err := p.model(ts.URL)
	if err != nil {
		return 0, err
	}
	c, err := client.New(m)
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	switch {
	case kind == "idle":
		if _, err := c.Prompt("hi").Call(ctx).Content(); err != nil {
			return 0, err
		}
	case kind == "attach" && len(args) == 1:
		part, err := content.ReadFile(args[0], 0)
		if err != nil {
			return 0, err
		}
		// The tail starts at a multiple of 3 bytes, where its base64 starts in the whole's.
		tail := (len(part.Data) - 3<<10) / 3 * 3
		srv.head = base64.StdEncoding.EncodeToString(part.Data[:3<<10])
		srv.tail = base64.StdEncoding.EncodeToString(part.Data[tail:])
		if _, err := c.Prompt().User("What is this?", part).Call(ctx).Content(); err != nil {
			return 0, err
		}
	case kind == "result" && len(args) == 1:
		n, err := strconv.Atoi(args[0])
		if err != nil {
			return 0, err
		}
		const unit = "0123456789abcdef"
		big := tool.Must(tool.Func("big", "Returns a large result", func(context.Context, struct{}) (string, error) {
			return strings.Repeat(unit, n/len(unit)), nil
		}))
		srv.toolCall = true
		srv.head = strings.Repeat(unit, 256)
		srv.tail = strings.Repeat(unit, 256)
		if _, err := c.Prompt("Call big.").Tools(big).Call(ctx).Content(); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("unknown measurement %q %q", kind, args)
	}
	if srv.head != "" && !srv.found.Load() {
		return 0, fmt.Errorf("no request carried the payload (largest body %d bytes)", srv.largest.Load())
	}
	return peakRSS()
}

// server answers in its provider's form: with a call of the tool "big" to the first request when
// toolCall is set, else with text. It reads each body as it streams, without keeping it, and
// notes whether one held head and, after it, tail.
type server struct {
	p          api
	toolCall   bool
	head, tail string
	requests   atomic.Int32
	found      atomic.Bool
	largest    atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := s.requests.Add(1)
	found, size, err := scanFor(r.Body, s.head, s.tail)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if found {
		s.found.Store(true)
	}
	if size > s.largest.Load() {
		s.largest.Store(size)
	}
	w.Header().Set("Content-Type", "application/json")
	if s.toolCall && n == 1 {
		_, _ = io.WriteString(w, s.p.toolAnswer)
		return
	}
	_, _ = io.WriteString(w, s.p.text)
}

// scanFor reads r to its end through a window, reporting whether head and then tail occur in
// it, and how many bytes it held.
func scanFor(r io.Reader, head, tail string) (found bool, size int64, err error) {
	keep := max(len(head), len(tail))
	buf := make([]byte, 0, 64<<10+keep)
	seenHead := head == ""
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		size += int64(n)
		if !seenHead {
			if i := bytes.Index(buf, []byte(head)); i >= 0 {
				seenHead = true
				buf = append(buf[:0], buf[i+len(head):]...)
			}
		}
		if seenHead && bytes.Contains(buf, []byte(tail)) {
			found = true
		}
		if len(buf) > keep {
			buf = append(buf[:0], buf[len(buf)-keep:]...)
		}
		if err == io.EOF {
			return found, size, nil
		}
		if err != nil {
			return false, size, err
		}
	}
}

// peakRSS reads the process's peak resident set from /proc/self/status.
func peakRSS() (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmHWM in /proc/self/status")
}
