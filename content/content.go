// Package content holds the parts a message or a tool result is made of: text, images,
// documents and audio. It is a leaf package, so tools, conversations and providers share one
// representation.
//
// A text-only message needs no parts: chat.User("hi") keeps its text in Content. Parts come in
// when a message carries media, or when a provider needs the position of a piece kept (a
// signature on an empty text part):
//
//	msg := chat.User("What is on this receipt?", content.Image(png, "image/png"))
package content

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Kind says what a part holds.
type Kind string

// The kinds of part.
const (
	KindText     Kind = "text"
	KindImage    Kind = "image"
	KindDocument Kind = "document"
	KindAudio    Kind = "audio"
)

// Part is one piece of a message's content. Every field survives a JSON round trip; Data is
// base64 in JSON.
type Part struct {
	Kind Kind `json:"kind"`
	// Text is the text of a text part.
	Text string `json:"text,omitempty"`
	// MediaType is the IANA media type of Data or of what URL points to ("image/png",
	// "application/pdf").
	MediaType string `json:"mediaType,omitempty"`
	// Data holds the bytes of an inline image, document or audio clip.
	Data []byte `json:"data,omitempty"`
	// URL points to the media instead of Data: https, or a provider's file URI (gs://, a Files
	// API URI). Providers that need bytes refuse it.
	URL string `json:"url,omitempty"`
	// Name is a document's file name or title, when it has one.
	Name string `json:"name,omitempty"`
	// Signature is an opaque value a provider attached to this part and needs back in the same
	// position (Gemini's thoughtSignature, which may come on an empty text part).
	Signature string `json:"signature,omitempty"`
}

// Text returns a text part.
func Text(s string) Part { return Part{Kind: KindText, Text: s} }

// Image returns an inline image part.
func Image(data []byte, mediaType string) Part {
	return Part{Kind: KindImage, Data: data, MediaType: mediaType}
}

// ImageURL returns an image part that points to the image. The media type is optional; give it
// for providers that ask for one with a URL (Gemini file URIs).
func ImageURL(u string, mediaType ...string) Part {
	return Part{Kind: KindImage, URL: u, MediaType: first(mediaType)}
}

// Document returns an inline document part (a PDF, a text file). name is optional.
func Document(data []byte, mediaType, name string) Part {
	return Part{Kind: KindDocument, Data: data, MediaType: mediaType, Name: name}
}

// DocumentURL returns a document part that points to the document.
func DocumentURL(u, mediaType string) Part {
	return Part{Kind: KindDocument, URL: u, MediaType: mediaType}
}

// Audio returns an inline audio part.
func Audio(data []byte, mediaType string) Part {
	return Part{Kind: KindAudio, Data: data, MediaType: mediaType}
}

// Media returns an inline part of the kind mediaType implies: an image, audio, or else a
// document. It is how a file of unknown kind becomes a part; pair it with [Detect].
func Media(data []byte, mediaType, name string) Part {
	p := Part{Data: data, MediaType: mediaType, Name: name}
	switch {
	case strings.HasPrefix(mediaType, "image/"):
		p.Kind = KindImage
	case strings.HasPrefix(mediaType, "audio/"):
		p.Kind = KindAudio
	default:
		p.Kind = KindDocument
	}
	return p
}

func first(s []string) string {
	if len(s) > 0 {
		return s[0]
	}
	return ""
}

// IsText reports whether p is a text part.
func (p Part) IsText() bool { return p.Kind == KindText }

// String describes p in a short line for logs and terminals, never with its bytes:
// "[image/png 34 KB]", "[document report.pdf application/pdf 1.2 MB]".
func (p Part) String() string {
	if p.Kind == KindText {
		return p.Text
	}
	var b strings.Builder
	b.WriteString("[")
	b.WriteString(string(p.Kind))
	if p.Name != "" {
		b.WriteString(" ")
		b.WriteString(p.Name)
	}
	if p.MediaType != "" {
		b.WriteString(" ")
		b.WriteString(p.MediaType)
	}
	if p.URL != "" {
		b.WriteString(" ")
		b.WriteString(redactURL(p.URL))
	} else {
		b.WriteString(" ")
		b.WriteString(FormatSize(len(p.Data)))
	}
	b.WriteString("]")
	return b.String()
}

// FormatSize renders a byte count for people, in binary units: "812 B", "34 KB", "1.2 MB".
func FormatSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}

// redactURL drops credentials and the query, which often carries signed tokens, and keeps data
// URLs short.
func redactURL(s string) string {
	if strings.HasPrefix(s, "data:") {
		if i := strings.IndexByte(s, ','); i > 0 {
			return s[:i] + ",…"
		}
		return "data:…"
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(invalid URL)"
	}
	u.User = nil
	if u.RawQuery != "" {
		u.RawQuery = "…"
	}
	return u.String()
}

// Errors Validate wraps, so callers can tell bad parts apart.
var (
	// ErrEmpty: a media part without bytes or URL.
	ErrEmpty = errors.New("content: part has no data")
	// ErrMediaType: a media type missing, malformed or not of the part's kind.
	ErrMediaType = errors.New("content: unsupported media type")
	// ErrTooLarge: a part over a size limit.
	ErrTooLarge = errors.New("content: part too large")
	// ErrNotRegular: a path [ReadFile] will not read: a directory, a device, a socket; and,
	// for [ReadRegularFile], a named pipe.
	ErrNotRegular = errors.New("content: not a regular file")
)

// Validate checks that p is well formed: a known kind, bytes or a URL for media, a media type of
// the part's kind. Providers check on top of it what their API takes.
func (p Part) Validate() error {
	switch p.Kind {
	case KindText:
		if len(p.Data) > 0 || p.URL != "" {
			return errors.New("content: a text part carries data or a URL")
		}
		return nil
	case KindImage, KindDocument, KindAudio:
	case "":
		return errors.New("content: part has no kind")
	default:
		return fmt.Errorf("content: unknown part kind %q", p.Kind)
	}
	if len(p.Data) == 0 && p.URL == "" {
		return fmt.Errorf("%w: %s part with neither bytes nor URL", ErrEmpty, p.Kind)
	}
	if len(p.Data) > 0 && p.URL != "" {
		return fmt.Errorf("content: %s part has both bytes and a URL", p.Kind)
	}
	if p.URL != "" {
		if _, err := url.Parse(p.URL); err != nil {
			return fmt.Errorf("content: %s part URL: %w", p.Kind, err)
		}
		if p.MediaType == "" {
			return nil
		}
	}
	return checkMediaType(p.Kind, p.MediaType)
}

func checkMediaType(k Kind, mt string) error {
	if mt == "" {
		return fmt.Errorf("%w: %s part without a media type", ErrMediaType, k)
	}
	top, sub, ok := strings.Cut(mt, "/")
	if !ok || sub == "" || strings.ContainsAny(mt, " ;") {
		return fmt.Errorf("%w: %q is not a media type (want type/subtype)", ErrMediaType, mt)
	}
	switch k {
	case KindImage:
		if top != "image" {
			return fmt.Errorf("%w: %q for an image part", ErrMediaType, mt)
		}
	case KindAudio:
		if top != "audio" {
			return fmt.Errorf("%w: %q for an audio part", ErrMediaType, mt)
		}
	case KindDocument:
		if top == "image" || top == "audio" {
			return fmt.Errorf("%w: %q for a document part", ErrMediaType, mt)
		}
	}
	return nil
}

// Unsupported is the error a provider returns, before sending anything, for a part its API
// cannot take.
type Unsupported struct {
	Provider string
	Part     Part
	// Reason says what the API lacks and what to do instead.
	Reason string
}

func (e *Unsupported) Error() string {
	what := string(e.Part.Kind) + " part"
	if e.Part.MediaType != "" {
		what += " (" + e.Part.MediaType + ")"
	}
	if e.Part.URL != "" {
		what += " by URL"
	}
	article := "a "
	if strings.ContainsRune("aeiou", rune(what[0])) {
		article = "an "
	}
	msg := e.Provider + ": cannot send " + article + what
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	return msg
}
