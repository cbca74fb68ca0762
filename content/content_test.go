package content_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wield-ai/wield/content"
)

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestJSONRoundTrip(t *testing.T) {
	parts := []content.Part{
		content.Text("look"),
		content.Image(pngBytes(t, 2, 2), "image/png"),
		content.ImageURL("https://example.com/a.jpg", "image/jpeg"),
		content.Document([]byte("%PDF-1.4\n"), "application/pdf", "a.pdf"),
		content.DocumentURL("gs://bucket/a.pdf", "application/pdf"),
		content.Audio([]byte("RIFF....WAVEfmt "), "audio/wav"),
		{Kind: content.KindText, Signature: "c2ln"},
	}
	b, err := json.Marshal(parts)
	if err != nil {
		t.Fatal(err)
	}
	var back []content.Part
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parts, back) {
		t.Fatalf("round trip changed parts:\n got %+v\nwant %+v", back, parts)
	}
	if !strings.Contains(string(b), `"data":"`) {
		t.Errorf("data not base64 in JSON: %s", b)
	}
}

func TestValidate(t *testing.T) {
	img := pngBytes(t, 1, 1)
	tests := []struct {
		name string
		part content.Part
		want error // nil: valid; otherwise errors.Is target, or errAny
	}{
		{"text", content.Text("hi"), nil},
		{"empty text with signature", content.Part{Kind: content.KindText, Signature: "x"}, nil},
		{"image bytes", content.Image(img, "image/png"), nil},
		{"image URL without type", content.ImageURL("https://x.test/a.png"), nil},
		{"empty image", content.Image(nil, "image/png"), content.ErrEmpty},
		{"image without type", content.Image(img, ""), content.ErrMediaType},
		{"image typed as pdf", content.Image(img, "application/pdf"), content.ErrMediaType},
		{"malformed type", content.Image(img, "png"), content.ErrMediaType},
		{"type with parameters", content.Image(img, "image/png; q=1"), content.ErrMediaType},
		{"document as image type", content.Document(img, "image/png", ""), content.ErrMediaType},
		{"audio typed as video", content.Audio([]byte("x"), "video/mp4"), content.ErrMediaType},
		{"pdf", content.Document([]byte("%PDF-"), "application/pdf", "x.pdf"), nil},
		{"no kind", content.Part{Data: img}, errAny},
		{"unknown kind", content.Part{Kind: "video", Data: img, MediaType: "video/mp4"}, errAny},
		{"bytes and URL", content.Part{Kind: content.KindImage, Data: img, URL: "https://x.test", MediaType: "image/png"}, errAny},
		{"text with data", content.Part{Kind: content.KindText, Data: img}, errAny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.part.Validate()
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("Validate() = %v, want nil", err)
			case tt.want == errAny && err == nil:
				t.Fatal("Validate() = nil, want an error")
			case tt.want != nil && tt.want != errAny && !errors.Is(err, tt.want):
				t.Fatalf("Validate() = %v, want %v", err, tt.want)
			}
		})
	}
}

var errAny = errors.New("any error")

func TestDetect(t *testing.T) {
	tests := []struct {
		data []byte
		want string
	}{
		{pngBytes(t, 1, 1), "image/png"},
		{[]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg"},
		{[]byte("GIF89a......"), "image/gif"},
		{[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), "image/webp"},
		{[]byte("%PDF-1.7\n%..."), "application/pdf"},
		{[]byte("RIFF\x00\x00\x00\x00WAVEfmt "), "audio/wav"},
		{[]byte("ID3\x03\x00\x00\x00"), "audio/mpeg"},
		{[]byte("plain notes, ünïcode too"), "text/plain"},
		{[]byte{0, 1, 2, 3, 0xfe, 0xff}, "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := content.Detect(tt.data); got != tt.want {
			t.Errorf("Detect(%q) = %q, want %q", tt.data[:min(len(tt.data), 8)], got, tt.want)
		}
	}
	// A multi-byte rune cut by the sniffing window is still text.
	long := strings.Repeat("é", 400)
	if got := content.Detect([]byte(long)); got != "text/plain" {
		t.Errorf("Detect(long UTF-8) = %q", got)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	img := pngBytes(t, 3, 2)
	p, err := content.ReadFile(write("shot.bin", img), 0)
	if err != nil || p.Kind != content.KindImage || p.MediaType != "image/png" || !bytes.Equal(p.Data, img) || p.Name != "shot.bin" {
		t.Fatalf("ReadFile(png) = %+v, %v", p.String(), err)
	}
	p, err = content.ReadFile(write("notes.md", []byte("# Title\n")), 0)
	if err != nil || p.Kind != content.KindDocument || p.MediaType != "text/markdown" {
		t.Fatalf("ReadFile(md) = %v, %v", p.String(), err)
	}
	p, err = content.ReadFile(write("a.pdf", []byte("%PDF-1.4\n")), 0)
	if err != nil || p.Kind != content.KindDocument || p.MediaType != "application/pdf" {
		t.Fatalf("ReadFile(pdf) = %v, %v", p.String(), err)
	}
	if _, err := content.ReadFile(write("empty.png", nil), 0); !errors.Is(err, content.ErrEmpty) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := content.ReadFile(write("blob", []byte{0, 1, 2, 0xfe}), 0); !errors.Is(err, content.ErrMediaType) {
		t.Errorf("unknown bytes: %v", err)
	}
	// The largest limit, as a caller says "no limit", reads the file: maxBytes+1 overflowed and
	// read nothing, and the file was called empty.
	p, err = content.ReadFile(write("big-limit.md", []byte("# Title\n")), math.MaxInt64)
	if err != nil || p.MediaType != "text/markdown" || string(p.Data) != "# Title\n" {
		t.Fatalf("ReadFile(limit MaxInt64) = %v, %v", p.String(), err)
	}
	if _, err := content.ReadFile(dir, 0); err == nil {
		t.Error("a directory was read")
	}

	// 50 MB, sparse: refused from its size, before it is read.
	big := filepath.Join(dir, "big.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(img); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(50 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = content.ReadFile(big, 0)
	if !errors.Is(err, content.ErrTooLarge) || !strings.Contains(err.Error(), "50.0 MB") || !strings.Contains(err.Error(), "the limit is 20.0 MB") {
		t.Fatalf("50 MB file: %v", err)
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		part content.Part
		want string
	}{
		{content.Image(make([]byte, 34_000), "image/png"), "[image image/png 33 KB]"},
		{content.Document(make([]byte, 1_200_000), "application/pdf", "report.pdf"), "[document report.pdf application/pdf 1.1 MB]"},
		{content.ImageURL("https://user:pw@x.test/a.png?sig=secret"), "[image https://x.test/a.png?…]"},
		{content.ImageURL("data:image/png;base64,AAAA"), "[image data:image/png;base64,…]"},
		{content.Text("plain"), "plain"},
	}
	for _, tt := range tests {
		if got := tt.part.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	err := &content.Unsupported{Provider: "ollama", Part: content.ImageURL("https://x.test/a.png"), Reason: "Ollama takes image bytes only"}
	if got := err.Error(); got != "ollama: cannot send an image part by URL: Ollama takes image bytes only" {
		t.Errorf("Error() = %q", got)
	}
}
