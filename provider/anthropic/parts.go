package anthropic

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/partwire"
)

// The image types the Messages API takes.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// partBlock maps a content part onto a block: text, an image (base64 or URL), or a document (a
// PDF by base64 or URL, or plain text). ok is false for an empty text part, which the API
// refuses and which carries nothing.
func partBlock(p content.Part) (b sdk.ContentBlockParamUnion, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return b, false, err
	}
	switch p.Kind {
	case content.KindText:
		if p.Text == "" {
			return b, false, nil
		}
		return sdk.NewTextBlock(p.Text), true, nil
	case content.KindImage:
		img, err := imageBlock(p)
		return sdk.ContentBlockParamUnion{OfImage: img}, err == nil, err
	case content.KindDocument:
		doc, err := documentBlock(p)
		return sdk.ContentBlockParamUnion{OfDocument: doc}, err == nil, err
	}
	return b, false, unsupported(p, "the Messages API takes text, images (JPEG, PNG, GIF, WebP) and PDF or plain-text documents")
}

// toolResultPart maps a part onto a tool_result content block: text, image or document, as the
// API takes all three there.
func toolResultPart(p content.Part) (b sdk.ToolResultBlockParamContentUnion, ok bool, err error) {
	block, ok, err := partBlock(p)
	if !ok || err != nil {
		return b, ok, err
	}
	switch {
	case block.OfText != nil:
		b.OfText = block.OfText
	case block.OfImage != nil:
		b.OfImage = block.OfImage
	case block.OfDocument != nil:
		b.OfDocument = block.OfDocument
	}
	return b, true, nil
}

func imageBlock(p content.Part) (*sdk.ImageBlockParam, error) {
	if p.URL != "" {
		if !partwire.IsHTTP(p.URL) {
			return nil, unsupported(p, "image URLs must be http(s); send the bytes instead")
		}
		return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfURL: &sdk.URLImageSourceParam{URL: p.URL}}}, nil
	}
	if !imageTypes[p.MediaType] {
		return nil, unsupported(p, "the Messages API takes JPEG, PNG, GIF and WebP images")
	}
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data: base64.StdEncoding.EncodeToString(p.Data), MediaType: sdk.Base64ImageSourceMediaType(p.MediaType),
	}}}, nil
}

func documentBlock(p content.Part) (*sdk.DocumentBlockParam, error) {
	doc := &sdk.DocumentBlockParam{}
	if p.Name != "" {
		doc.Title = sdk.String(p.Name)
	}
	switch {
	case p.URL != "" && (p.MediaType == "application/pdf" || p.MediaType == "") && partwire.IsHTTP(p.URL):
		doc.Source.OfURL = &sdk.URLPDFSourceParam{URL: p.URL}
	case p.URL != "":
		return nil, unsupported(p, "document URLs must be http(s) links to PDFs; send other documents' bytes")
	case p.MediaType == "application/pdf":
		doc.Source.OfBase64 = &sdk.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(p.Data)}
	case strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json":
		if !utf8.Valid(p.Data) {
			return nil, unsupported(p, "a text document must be UTF-8")
		}
		doc.Source.OfText = &sdk.PlainTextSourceParam{Data: string(p.Data)}
	default:
		return nil, unsupported(p, "the Messages API takes PDF and plain-text documents")
	}
	return doc, nil
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: ProviderName, Part: p, Reason: reason}
}
