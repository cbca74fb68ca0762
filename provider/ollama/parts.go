package ollama

import (
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/splice"
)

// imageTypes are the image types Ollama's server decodes.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true}

// messageContent maps a message's parts onto Ollama's shape: one text (text parts and text
// documents, in order) and the images as raw bytes beside it. Ollama takes image bytes only: a
// URL, a PDF or audio is refused. A text of one part is that part's own string, so that a large
// one is spliced rather than copied into the request.
func messageContent(parts iter.Seq[content.Part]) (string, []api.ImageData, error) {
	// The pieces of the text, strings or a document's bytes.
	var texts []string
	var docs [][]byte
	size := 0
	write := func(s string, doc []byte) {
		texts, docs = append(texts, s), append(docs, doc)
		size += len(s) + len(doc)
	}
	var images []api.ImageData
	for p := range parts {
		if err := p.Validate(); err != nil {
			return "", nil, err
		}
		switch {
		case p.Kind == content.KindText:
			write(p.Text, nil)
		case p.Kind == content.KindImage && p.URL != "":
			return "", nil, unsupported(p, "Ollama takes image bytes, not URLs; download the image and send its bytes")
		case p.Kind == content.KindImage && !imageTypes[p.MediaType]:
			return "", nil, unsupported(p, "Ollama reads PNG and JPEG images; convert the image to one of them")
		case p.Kind == content.KindImage:
			images = append(images, api.ImageData(splice.Bytes(p.Data)))
		case p.Kind == content.KindDocument && len(p.Data) > 0 && (strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json") && utf8.Valid(p.Data):
			if size > 0 {
				write("\n", nil)
			}
			if p.Name != "" {
				write(p.Name+":\n", nil)
			}
			write("", p.Data)
		default:
			return "", nil, unsupported(p, "Ollama takes text and images; convert documents to text or images first")
		}
	}
	if len(texts) == 1 && docs[0] == nil {
		return splice.Text(texts[0]), images, nil
	}
	var b strings.Builder
	b.Grow(size)
	for i, s := range texts {
		b.WriteString(s)
		b.Write(docs[i])
	}
	return b.String(), images, nil
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: providerName, Part: p, Reason: reason}
}

// answerImages maps the images of an answer onto image parts, named by their bytes; bytes that
// are no image Go can name are skipped.
func answerImages(images []api.ImageData) []content.Part {
	var out []content.Part
	for _, im := range images {
		if mt := content.Detect(im); strings.HasPrefix(mt, "image/") {
			out = append(out, content.Image(im, mt))
		}
	}
	return out
}
