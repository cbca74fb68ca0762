package ollama

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/content"
)

// messageContent maps a message's parts onto Ollama's shape: one text (text parts and text
// documents, in order) and the images as raw bytes beside it. Ollama takes image bytes only: a
// URL, a PDF or audio is refused.
func messageContent(parts iter.Seq[content.Part]) (string, []api.ImageData, error) {
	var b strings.Builder
	var images []api.ImageData
	for p := range parts {
		if err := p.Validate(); err != nil {
			return "", nil, err
		}
		switch {
		case p.Kind == content.KindText:
			b.WriteString(p.Text)
		case p.Kind == content.KindImage && p.URL == "":
			images = append(images, api.ImageData(p.Data))
		case p.Kind == content.KindImage:
			return "", nil, unsupported(p, "Ollama takes image bytes, not URLs; download the image and send its bytes")
		case p.Kind == content.KindDocument && len(p.Data) > 0 && (strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json") && utf8.Valid(p.Data):
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			if p.Name != "" {
				b.WriteString(p.Name + ":\n")
			}
			b.Write(p.Data)
		default:
			return "", nil, unsupported(p, "Ollama takes text and images; convert documents to text or images first")
		}
	}
	return b.String(), images, nil
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: providerName, Part: p, Reason: reason}
}
