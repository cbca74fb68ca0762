package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/content"
)

// pngOf returns a PNG of the given size.
func pngOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// attachFiles writes an image, a PDF and a Markdown file and returns their paths.
func attachFiles(t *testing.T) (photo, pdf, notes string) {
	dir := t.TempDir()
	photo, pdf, notes = filepath.Join(dir, "photo.png"), filepath.Join(dir, "report.pdf"), filepath.Join(dir, "notes.md")
	for path, data := range map[string][]byte{
		photo: pngOf(t, 800, 600),
		pdf:   []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"),
		notes: []byte("# Notes\n\n- buy tea\n"),
	} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return photo, pdf, notes
}

// userParts are the media parts of the last user message of a prompt the model received.
func userParts(p *chat.Prompt) (string, []string) {
	for i := len(p.Messages) - 1; i >= 0; i-- {
		m := p.Messages[i]
		if m.Role != chat.RoleUser {
			continue
		}
		var kinds []string
		for _, part := range m.Parts {
			kinds = append(kinds, string(part.Kind)+" "+part.MediaType+" "+part.Name)
		}
		return m.Content, kinds
	}
	return "", nil
}

// --attach sends files with the question, each as the part its content shows.
func TestChatAttach(t *testing.T) {
	photo, pdf, notes := attachFiles(t)
	m := chattest.New(chattest.Text("A grey picture, a report and notes."))
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--attach", photo, "--attach", pdf, "--attach", notes, "what", "are", "these?")
	if code != 0 || stdout != "A grey picture, a report and notes.\n" {
		t.Fatalf("exit %d, %q\n%s", code, stdout, stderr)
	}
	text, parts := userParts(m.Prompt(0))
	if text != "what are these?" || strings.Join(parts, "|") != "image image/png photo.png|document application/pdf report.pdf|document text/markdown notes.md" {
		t.Errorf("the model got %q with %q", text, parts)
	}
	got := m.Prompt(0).Messages[len(m.Prompt(0).Messages)-1].Parts[0].Data
	if want, _ := os.ReadFile(photo); !bytes.Equal(got, want) {
		t.Error("the image's bytes changed on the way")
	}
}

// Files that cannot be sent are refused before the model is asked, saying why.
func TestChatAttachRefused(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(50 << 20) // sparse: 50 MB on paper
	f.Close()
	binary := filepath.Join(dir, "blob.bin")
	os.WriteFile(binary, []byte{0, 1, 2, 3, 0xfe, 0xff, 0, 7}, 0o600)
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o600)
	for path, want := range map[string]string{
		big:                               "wield: " + big + " is too large to attach (50.0 MB): the limit is 20.0 MB, what the providers take in one request\n",
		binary:                            "wield: " + binary + " cannot be attached: it is not an image, audio, PDF or text file\n",
		empty:                             "wield: " + empty + " is empty: nothing to attach\n",
		filepath.Join(dir, "missing.png"): "wield: cannot attach " + filepath.Join(dir, "missing.png") + ": no such file or directory\n",
		os.DevNull:                        "wield: " + os.DevNull + " cannot be attached: it is not a regular file\n",
	} {
		m := chattest.New(chattest.Text("never"))
		_, stderr, code := run(t, keyEnv(t), m, "", "chat", "--attach", path, "what is this?")
		if code != exitUsage || !strings.HasPrefix(stderr, want) || m.Requests() != 0 {
			t.Errorf("%s: exit %d, %d requests, stderr %q, want %q", filepath.Base(path), code, m.Requests(), stderr, want)
		}
	}
}

// In a chat of several questions, --attach goes with the first and /attach FILE with the next.
func TestChatAttachInteractive(t *testing.T) {
	photo, pdf, _ := attachFiles(t)
	m := chattest.New(chattest.Text("A picture."), chattest.Text("Nothing new."), chattest.Text("A report."))
	input := "what is it?\nand now?\n/attach " + pdf + "\n/attach " + filepath.Join(t.TempDir(), "missing.pdf") + "\nand this?\n"
	_, stderr, code := run(t, keyEnv(t), m, input, "chat", "--lines", "--attach", photo)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var got []string
	for _, p := range m.Prompts() {
		text, parts := userParts(p)
		got = append(got, text+" "+strings.Join(parts, ","))
	}
	want := []string{"what is it? image image/png photo.png", "and now? ", "and this? document application/pdf report.pdf"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("questions %q, want %q", got, want)
	}
	if !strings.Contains(stderr, "missing.pdf: no such file or directory") {
		t.Errorf("stderr %q", stderr)
	}
}

// An image in a tool's result (server-everything's get-tiny-image) is shown as a short line, and
// described in the JSON events.
func TestToolResultImageShown(t *testing.T) {
	cfg := everythingConfig(t)
	m := chattest.New(chattest.Calls(chattest.Call("get-tiny-image", `{}`)), chattest.Text("A tiny image."))
	_, stderr, code := run(t, keyEnv(t), m, "", "chat", "--verbose", "--builtin=false", "--mcp-config", cfg, "show me an image")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var img *content.Part
	for _, msg := range m.Prompt(1).Messages {
		for _, r := range msg.ToolResults {
			for _, p := range r.Parts {
				if p.Kind == content.KindImage {
					img = &p
				}
			}
		}
	}
	if img == nil {
		t.Fatalf("the model got no image: %+v", m.Prompt(1).Messages)
	}
	w, h, ok := imageSize(*img)
	if !ok {
		t.Fatal("the image's size cannot be read")
	}
	line := "  " + partLine(*img) + "\n"
	if want := "[image png " + strconv.Itoa(w) + "×" + strconv.Itoa(h) + ", "; !strings.HasPrefix(partLine(*img), want) || !strings.Contains(stderr, "tool get-tiny-image done in ") || !strings.Contains(stderr, line) {
		t.Errorf("stderr %q lacks %q (want %s…)", stderr, line, want)
	}

	m = chattest.New(chattest.Calls(chattest.Call("get-tiny-image", `{}`)), chattest.Text("A tiny image."))
	stdout, stderr, code := run(t, keyEnv(t), m, "", "chat", "--json", "--builtin=false", "--mcp-config", cfg, "show me an image")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	found := false
	for _, ev := range jsonEvents(t, stdout) {
		if ev.Type == "tool_end" {
			found = len(ev.Parts) == 1 && ev.Parts[0] == jsonPart{Kind: "image", MediaType: "image/png", Bytes: len(img.Data), Width: w, Height: h}
			if !found {
				t.Errorf("tool_end parts %+v", ev.Parts)
			}
		}
	}
	if !found {
		t.Errorf("no tool_end with the image:\n%s", stdout)
	}
}

func TestPartLine(t *testing.T) {
	for _, tc := range []struct {
		p    content.Part
		want string
	}{
		{content.Image(pngOf(t, 800, 600), "image/png"), "[image png 800×600, "},
		{content.Image([]byte("not a png"), "image/webp"), "[image webp, 9 B]"},
		{content.Document(make([]byte, 1234567), "application/pdf", "report.pdf"), "[document report.pdf pdf, 1.2 MB]"},
		{content.Audio(make([]byte, 2048), "audio/wav"), "[audio wav, 2 KB]"},
		{content.ImageURL("https://user:pw@example.com/cat.png?sig=secret"), "[image https://example.com/cat.png?…]"},
		{content.Document([]byte("x"), "text/plain", "evil\x1b[2Jname"), `[document evil\x1b[2Jname plain, 1 B]`},
	} {
		if got := partLine(tc.p); !strings.HasPrefix(got, tc.want) {
			t.Errorf("partLine = %q, want %q…", got, tc.want)
		}
	}
}

// Through the OpenAI-compatible provider, attachments reach the server as content parts.
func TestBinaryChatAttach(t *testing.T) {
	photo, pdf, notes := attachFiles(t)
	srv := newFakeOpenAI(t, reply{text: "Three files."})
	r := wield(t, cleanEnv(t), "", "chat", "--base-url", srv.v1(), "--model", "gpt-4o", "--attach", photo, "--attach", pdf, "--attach", notes, "what are these?")
	if r.code != 0 || r.stdout != "Three files.\n" {
		t.Fatalf("exit %d, %q\n%s", r.code, r.stdout, r.stderr)
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	reqs := srv.requests()
	if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
		t.Fatal(err)
	}
	user := body.Messages[len(body.Messages)-1]
	var got []string
	for _, c := range user.Content {
		var p struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
			File struct {
				FileData string `json:"file_data"`
				Filename string `json:"filename"`
			} `json:"file"`
		}
		json.Unmarshal(c, &p)
		switch p.Type {
		case "text":
			got = append(got, "text "+strings.SplitN(p.Text, "\n", 2)[0])
		case "image_url":
			got = append(got, "image_url "+strings.SplitN(p.ImageURL.URL, ",", 2)[0])
		case "file":
			got = append(got, "file "+p.File.Filename+" "+strings.SplitN(p.File.FileData, ",", 2)[0])
		default:
			got = append(got, string(c))
		}
	}
	if want := "text what are these?|image_url data:image/png;base64|file report.pdf data:application/pdf;base64|text notes.md:"; strings.Join(got, "|") != want {
		t.Errorf("the user message's parts %q, want %q", got, want)
	}
}
