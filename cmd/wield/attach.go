package main

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // dimensions of attached and returned images
	_ "image/jpeg"
	_ "image/png"
	"io/fs"
	"os"
	"strings"

	"github.com/wield-ai/wield/content"
)

// maxAttachBytes is the most a file attached to a question may hold: the inline limit of the
// strictest provider API (see content.DefaultMaxFileBytes).
const maxAttachBytes = content.DefaultMaxFileBytes

// readAttachment reads a file to send with a question: an image, audio, a PDF or another
// document, or a text file, its media type told by its content.
func readAttachment(path string) (content.Part, error) {
	p, err := content.ReadFile(path, maxAttachBytes)
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, content.ErrTooLarge):
		size := ""
		if fi, serr := os.Stat(path); serr == nil {
			size = " (" + content.FormatSize(int(fi.Size())) + ")"
		}
		return p, fmt.Errorf("%s is too large to attach%s: the limit is %s, what the providers take in one request", safeLine(path), size, content.FormatSize(maxAttachBytes))
	case errors.Is(err, content.ErrMediaType):
		return p, fmt.Errorf("%s cannot be attached: it is not an image, audio, PDF or text file", safeLine(path))
	case errors.Is(err, content.ErrNotRegular):
		return p, fmt.Errorf("%s cannot be attached: it is not a regular file", safeLine(path))
	case errors.Is(err, content.ErrEmpty):
		return p, fmt.Errorf("%s is empty: nothing to attach", safeLine(path))
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return p, fmt.Errorf("cannot attach %s: %w", safeLine(path), pe.Err) // no such file, permission denied
	}
	return p, fmt.Errorf("attaching %w", err)
}

// readAttachments reads the files of --attach.
func readAttachments(paths []string) ([]content.Part, error) {
	parts := make([]content.Part, 0, len(paths))
	for _, path := range paths {
		p, err := readAttachment(path)
		if err != nil {
			return nil, usageError{err}
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// partLine describes a part that is not text on one line, for the terminal:
// "[image png 800×600, 34 KB]", "[document report.pdf pdf, 1.2 MB]".
func partLine(p content.Part) string {
	if p.URL != "" || p.Kind == content.KindText {
		return safeLine(oneLine(p.String(), 200))
	}
	var b strings.Builder
	b.WriteString("[" + string(p.Kind))
	if p.Name != "" {
		b.WriteString(" " + oneLine(p.Name, 60))
	}
	sub := p.MediaType
	if _, after, ok := strings.Cut(sub, "/"); ok {
		sub = after
	}
	if sub != "" {
		b.WriteString(" " + sub)
	}
	if w, h, ok := imageSize(p); ok {
		fmt.Fprintf(&b, " %d×%d", w, h)
	}
	b.WriteString(", " + content.FormatSize(len(p.Data)) + "]")
	return safeLine(b.String())
}

// imageSize reads an image part's dimensions from its header, for the formats the standard
// library decodes (PNG, JPEG, GIF).
func imageSize(p content.Part) (width, height int, ok bool) {
	if p.Kind != content.KindImage || len(p.Data) == 0 {
		return 0, 0, false
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(p.Data))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// mediaParts are the parts of ps that are not text.
func mediaParts(ps []content.Part) []content.Part {
	var out []content.Part
	for _, p := range ps {
		if p.Kind != content.KindText {
			out = append(out, p)
		}
	}
	return out
}
