package openai

import (
	"encoding/base64"
	"iter"
	"strings"
	"unicode/utf8"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/partwire"
)

// The image types both APIs take.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// audioFormats maps the audio media types Chat Completions takes onto its format names.
var audioFormats = map[string]string{"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}

func dataURL(p content.Part) string {
	return "data:" + p.MediaType + ";base64," + base64.StdEncoding.EncodeToString(p.Data)
}

// fetchable reports whether OpenAI can read an image URL: http(s), or a data URL.
func fetchable(u string) bool { return partwire.IsHTTP(u) || strings.HasPrefix(u, "data:") }

// textDocument returns a text document's content as text the model reads, headed by its name.
func textDocument(p content.Part) (string, bool) {
	if p.Kind != content.KindDocument || len(p.Data) == 0 || !(strings.HasPrefix(p.MediaType, "text/") || p.MediaType == "application/json") || !utf8.Valid(p.Data) {
		return "", false
	}
	if p.Name == "" {
		return string(p.Data), true
	}
	return p.Name + ":\n" + string(p.Data), true
}

// imageOK checks an image part against what both APIs take.
func imageOK(p content.Part) error {
	if p.URL != "" {
		if !fetchable(p.URL) {
			return unsupported(p, "image URLs must be http(s) or data URLs")
		}
		return nil
	}
	if !imageTypes[p.MediaType] {
		return unsupported(p, "the API takes JPEG, PNG, GIF and WebP images")
	}
	return nil
}

func imageURL(p content.Part) string {
	if p.URL != "" {
		return p.URL
	}
	return dataURL(p)
}

// chatPart maps a part onto a Chat Completions content part. Text documents are sent as text;
// PDFs as file parts; audio (WAV, MP3) as input_audio. ok is false for an empty text part.
func (w chatWire) chatPart(p content.Part) (out oai.ChatCompletionContentPartUnionParam, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return out, false, err
	}
	if text, isDoc := textDocument(p); isDoc {
		p = content.Text(text)
	}
	switch p.Kind {
	case content.KindText:
		if p.Text == "" {
			return out, false, nil
		}
		return oai.TextContentPart(p.Text), true, nil
	case content.KindImage:
		if err := imageOK(p); err != nil {
			return out, false, err
		}
		return oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: imageURL(p)}), true, nil
	case content.KindAudio:
		format := audioFormats[p.MediaType]
		if p.URL != "" || format == "" {
			return out, false, unsupported(p, "Chat Completions takes WAV and MP3 audio as bytes")
		}
		return oai.InputAudioContentPart(oai.ChatCompletionContentPartInputAudioInputAudioParam{
			Data: base64.StdEncoding.EncodeToString(p.Data), Format: format}), true, nil
	case content.KindDocument:
		if w.mistral {
			return out, false, unsupported(p, "Mistral's chat API takes text documents only (as text)")
		}
		if p.URL != "" || p.MediaType != "application/pdf" {
			return out, false, unsupported(p, "Chat Completions takes PDFs as bytes and text documents; use the Responses API for file URLs")
		}
		f := oai.ChatCompletionContentPartFileFileParam{FileData: oai.String(dataURL(p))}
		f.Filename = oai.String(orDefault(p.Name, "document.pdf"))
		return oai.FileContentPart(f), true, nil
	}
	return out, false, unsupported(p, "unknown part")
}

// chatParts maps a message's content onto content parts.
func (w chatWire) chatParts(parts iter.Seq[content.Part]) ([]oai.ChatCompletionContentPartUnionParam, error) {
	var out []oai.ChatCompletionContentPartUnionParam
	for p := range parts {
		cp, ok, err := w.chatPart(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, cp)
		}
	}
	return out, nil
}

// textOnly returns a message's text, refusing media: system and assistant messages and tool
// results are text in these APIs.
func textOnly(parts iter.Seq[content.Part], where string) (string, error) {
	var b strings.Builder
	for p := range parts {
		if text, ok := textDocument(p); ok {
			b.WriteString(text)
			continue
		}
		if p.Kind != content.KindText {
			return "", unsupported(p, where+" takes text only")
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// responsesPart maps a part onto a Responses input content part.
func responsesPart(p content.Part) (out responses.ResponseInputContentUnionParam, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return out, false, err
	}
	if text, isDoc := textDocument(p); isDoc {
		p = content.Text(text)
	}
	switch p.Kind {
	case content.KindText:
		if p.Text == "" {
			return out, false, nil
		}
		return responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: p.Text}}, true, nil
	case content.KindImage:
		if err := imageOK(p); err != nil {
			return out, false, err
		}
		return responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
			ImageURL: oai.String(imageURL(p)), Detail: responses.ResponseInputImageDetailAuto}}, true, nil
	case content.KindDocument:
		f := &responses.ResponseInputFileParam{}
		if p.URL != "" {
			f.FileURL = oai.String(p.URL)
		} else {
			f.FileData = oai.String(dataURL(p))
			f.Filename = oai.String(orDefault(p.Name, "document"))
		}
		return responses.ResponseInputContentUnionParam{OfInputFile: f}, true, nil
	}
	return out, false, unsupported(p, "the Responses API takes text, images and files, not audio")
}

// responsesContent maps a message's content onto Responses input content.
func responsesContent(parts iter.Seq[content.Part]) (responses.ResponseInputMessageContentListParam, error) {
	var out responses.ResponseInputMessageContentListParam
	for p := range parts {
		rp, ok, err := responsesPart(p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, rp)
		}
	}
	return out, nil
}

// functionOutput maps a tool result onto function_call_output's output: its text alone, or,
// with media, an array of input_text, input_image and input_file items, as the API takes them.
func functionOutput(r chat.ToolResult) (responses.ResponseInputItemFunctionCallOutputOutputUnionParam, error) {
	var out responses.ResponseInputItemFunctionCallOutputOutputUnionParam
	if !r.HasMedia() {
		out.OfString = oai.String(resultText(r))
		return out, nil
	}
	first := true
	for p := range r.AllParts() {
		if first && r.IsError && p.Kind == content.KindText {
			p.Text = "Error: " + p.Text
		}
		first = false
		rp, ok, err := responsesPart(p)
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		var item responses.ResponseFunctionCallOutputItemUnionParam
		switch {
		case rp.OfInputText != nil:
			item.OfInputText = &responses.ResponseInputTextContentParam{Text: rp.OfInputText.Text}
		case rp.OfInputImage != nil:
			item.OfInputImage = &responses.ResponseInputImageContentParam{ImageURL: rp.OfInputImage.ImageURL}
		case rp.OfInputFile != nil:
			item.OfInputFile = &responses.ResponseInputFileContentParam{FileData: rp.OfInputFile.FileData, FileURL: rp.OfInputFile.FileURL, Filename: rp.OfInputFile.Filename}
		}
		out.OfResponseFunctionCallOutputItemArray = append(out.OfResponseFunctionCallOutputItemArray, item)
	}
	return out, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: Provider, Part: p, Reason: reason}
}
