package anthropic

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/splice"
	"github.com/wield-ai/wield/provider/internal/wire"
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
		return sdk.NewTextBlock(splice.Text(p.Text)), true, nil
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
		if !wire.IsHTTP(p.URL) {
			return nil, unsupported(p, "image URLs must be http(s); send the bytes instead")
		}
		return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfURL: &sdk.URLImageSourceParam{URL: p.URL}}}, nil
	}
	if !imageTypes[p.MediaType] {
		return nil, unsupported(p, "the Messages API takes JPEG, PNG, GIF and WebP images")
	}
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data: splice.Base64(p.Data), MediaType: sdk.Base64ImageSourceMediaType(p.MediaType),
	}}}, nil
}

func documentBlock(p content.Part) (*sdk.DocumentBlockParam, error) {
	doc := &sdk.DocumentBlockParam{}
	if p.Name != "" {
		doc.Title = sdk.String(p.Name)
	}
	switch {
	case p.URL != "" && (p.MediaType == "application/pdf" || p.MediaType == "") && wire.IsHTTP(p.URL):
		doc.Source.OfURL = &sdk.URLPDFSourceParam{URL: p.URL}
	case p.URL != "":
		return nil, unsupported(p, "document URLs must be http(s) links to PDFs; send other documents' bytes")
	case p.MediaType == "application/pdf":
		doc.Source.OfBase64 = &sdk.Base64PDFSourceParam{Data: splice.Base64(p.Data)}
	case strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json":
		if !utf8.Valid(p.Data) {
			return nil, unsupported(p, "a text document must be UTF-8")
		}
		doc.Source.OfText = &sdk.PlainTextSourceParam{Data: splice.TextOf(p.Data)}
	default:
		return nil, unsupported(p, "the Messages API takes PDF and plain-text documents")
	}
	return doc, nil
}

// maxRequestBytes is the size limit of a Messages API request (32 MB), which the base64 of a
// request's media must leave room under.
const maxRequestBytes = 32 << 20

// checkParts refuses, before any block is built, what the request could not carry: malformed
// parts; media in an assistant turn (the API takes images and documents in user turns and tool
// results only); media by URL on Bedrock and Vertex AI, which take base64 sources only; and media
// whose base64 alone passes the request size limit.
func checkParts(platform string, msgs []chat.Message) error {
	encoded := 0
	check := func(i int, p content.Part, assistant bool) error {
		if err := p.Validate(); err != nil {
			return wire.MessageError(ProviderName, i, err)
		}
		if p.Kind == content.KindText {
			return nil
		}
		switch {
		case assistant:
			return wire.MessageError(ProviderName, i, unsupported(p, "the Messages API takes images and documents in user messages and tool results, not in assistant turns"))
		case p.URL != "" && platform != ProviderName:
			return wire.MessageError(ProviderName, i, unsupported(p, "Claude on "+platformName(platform)+" takes media as base64 only, not by URL; send the bytes"))
		}
		encoded += base64.StdEncoding.EncodedLen(len(p.Data))
		if encoded > maxRequestBytes {
			return wire.MessageError(ProviderName, i, fmt.Errorf("%w: the request's media come to %s in base64, over the Messages API's request limit of %s; send fewer or smaller files",
				content.ErrTooLarge, content.FormatSize(encoded), content.FormatSize(maxRequestBytes)))
		}
		return nil
	}
	for i := range msgs {
		msg := &msgs[i]
		for p := range msg.AllParts() {
			if err := check(i, p, msg.Role == chat.RoleAssistant); err != nil {
				return err
			}
		}
		for _, r := range msg.ToolResults {
			for p := range r.AllParts() {
				if err := check(i, p, false); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// platformName names a cloud platform for people.
func platformName(platform string) string {
	switch platform {
	case PlatformBedrock:
		return "Amazon Bedrock"
	case PlatformVertex:
		return "Vertex AI"
	}
	return platform
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: ProviderName, Part: p, Reason: reason}
}
