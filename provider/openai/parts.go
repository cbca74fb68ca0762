package openai

import (
	"iter"
	"strings"
	"unicode/utf8"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/splice"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// The image types both APIs take.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// audioFormats maps the audio media types Chat Completions takes onto its format names.
var audioFormats = map[string]string{"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}

// Prefixes of the ids OpenAI gives the media it generates: Chat Completions' audio answers and
// the Responses API's image_generation_call items. A part carrying such an id in its Signature
// came from this API.
const (
	audioIDPrefix = "audio_"
	imageIDPrefix = "ig_"
)

func dataURL(p content.Part) string {
	return "data:" + p.MediaType + ";base64," + splice.Base64(p.Data)
}

// fetchable reports whether OpenAI can read an image URL: http(s), or a data URL.
func fetchable(u string) bool { return wire.IsHTTP(u) || strings.HasPrefix(u, "data:") }

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

// sendable checks p and returns it as both APIs take it: a text document as text. ok is false
// for an invalid part, with the error, and for an empty text, which is not sent.
func sendable(p content.Part) (_ content.Part, ok bool, err error) {
	if err := p.Validate(); err != nil {
		return p, false, err
	}
	if text, isDoc := textDocument(p); isDoc {
		p = content.Text(text)
	}
	return p, p.Kind != content.KindText || p.Text != "", nil
}

// imageOK checks an image part against what both APIs (and Mistral's) take.
func imageOK(provider string, p content.Part) error {
	if p.URL != "" {
		if !fetchable(p.URL) {
			return refuse(provider, p, "image URLs must be http(s) or data URLs; send other images as bytes")
		}
		return nil
	}
	if !imageTypes[p.MediaType] {
		return refuse(provider, p, "the API takes JPEG, PNG, GIF and WebP images; convert the image to one of them")
	}
	return nil
}

func imageURL(p content.Part) string {
	if p.URL != "" {
		return p.URL
	}
	return dataURL(p)
}

// provider names the API in the errors of refused parts.
func (w chatWire) provider() string {
	if w.mistral {
		return MistralProvider
	}
	return Provider
}

// chatPart maps a part onto a Chat Completions content part. Text documents are sent as text;
// PDFs as file parts (Mistral: document_url chunks, by URL); audio (WAV, MP3) as input_audio
// (Mistral: its base64 alone). ok is false for an empty text part.
func (w chatWire) chatPart(p content.Part) (out oai.ChatCompletionContentPartUnionParam, ok bool, err error) {
	if p, ok, err = sendable(p); !ok {
		return out, false, err
	}
	switch p.Kind {
	case content.KindText:
		return oai.TextContentPart(p.Text), true, nil
	case content.KindImage:
		if err := imageOK(w.provider(), p); err != nil {
			return out, false, err
		}
		return oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{URL: imageURL(p)}), true, nil
	case content.KindAudio:
		format := audioFormats[p.MediaType]
		if p.URL != "" || format == "" {
			return out, false, refuse(w.provider(), p, "the API takes WAV and MP3 audio as bytes")
		}
		data := splice.Base64(p.Data)
		if w.mistral {
			// Mistral's input_audio is the base64 text itself, not OpenAI's {data, format}.
			a := param.Override[oai.ChatCompletionContentPartInputAudioParam](map[string]any{"type": "input_audio", "input_audio": data})
			return oai.ChatCompletionContentPartUnionParam{OfInputAudio: &a}, true, nil
		}
		return oai.InputAudioContentPart(oai.ChatCompletionContentPartInputAudioInputAudioParam{Data: data, Format: format}), true, nil
	case content.KindDocument:
		if w.mistral {
			return mistralDocument(p)
		}
		if p.URL != "" || p.MediaType != "application/pdf" {
			return out, false, refuse(Provider, p, "Chat Completions takes PDFs as bytes and text documents; use the Responses API for file URLs")
		}
		f := oai.ChatCompletionContentPartFileFileParam{FileData: oai.String(dataURL(p))}
		f.Filename = oai.String(orDefault(p.Name, "document.pdf"))
		return oai.FileContentPart(f), true, nil
	}
	return out, false, refuse(w.provider(), p, "unknown part")
}

// mistralDocument maps a document onto Mistral's document_url chunk. Mistral reads PDFs from a
// URL: its documentation has local files uploaded to its Files API first, and their signed URL
// sent.
func mistralDocument(p content.Part) (out oai.ChatCompletionContentPartUnionParam, ok bool, err error) {
	if p.MediaType != "" && p.MediaType != "application/pdf" {
		return out, false, refuse(MistralProvider, p, "Mistral takes PDFs and text documents")
	}
	if !wire.IsHTTP(p.URL) {
		return out, false, refuse(MistralProvider, p, "Mistral reads PDFs from an http(s) URL: upload the file to Mistral's Files API and send its signed URL (content.DocumentURL)")
	}
	chunk := map[string]any{"type": "document_url", "document_url": p.URL}
	if p.Name != "" {
		chunk["document_name"] = p.Name
	}
	f := param.Override[oai.ChatCompletionContentPartFileParam](chunk)
	return oai.ChatCompletionContentPartUnionParam{OfFile: &f}, true, nil
}

// chatParts maps a message's content onto content parts.
func (w chatWire) chatParts(parts iter.Seq[content.Part]) ([]oai.ChatCompletionContentPartUnionParam, error) {
	// Not wire.AppendParts: the method value it would take costs an allocation a call.
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

// textOnly returns a message's text, refusing media: system messages are text in these APIs.
func textOnly(provider string, parts iter.Seq[content.Part], where string) (string, error) {
	var b strings.Builder
	for p := range parts {
		if err := p.Validate(); err != nil {
			return "", err
		}
		if text, ok := textDocument(p); ok {
			b.WriteString(text)
			continue
		}
		if p.Kind != content.KindText {
			return "", refuse(provider, p, where+" takes text only; put media in a user message")
		}
		b.WriteString(p.Text)
	}
	return b.String(), nil
}

// assistantContent splits an assistant message's content for APIs whose assistant messages
// hold text: its text, in order (a text part's Signature belongs to the provider that made it
// and is not sent), and its media, which the caller sends where the API takes them. Audio this
// API generated (its id in Signature) is left out: its transcript is the message's text, which
// is what the model needs of it, and OpenAI keeps the audio itself for a short time only.
func assistantContent(m chat.Message) (string, []content.Part, error) {
	var b strings.Builder
	var media []content.Part
	for p := range m.AllParts() {
		if err := p.Validate(); err != nil {
			return "", nil, err
		}
		if text, ok := textDocument(p); ok {
			b.WriteString(text)
			continue
		}
		switch {
		case p.Kind == content.KindText:
			b.WriteString(p.Text)
		case ownAudio(p):
		default:
			media = append(media, p)
		}
	}
	return b.String(), media, nil
}

// answerParts yields an assistant message's parts but the audio this API generated, which
// assistantContent leaves out.
func answerParts(m chat.Message) iter.Seq[content.Part] {
	return func(yield func(content.Part) bool) {
		for p := range m.AllParts() {
			if !ownAudio(p) && !yield(p) {
				return
			}
		}
	}
}

// ownAudio reports whether p is audio Chat Completions generated (its id in Signature).
func ownAudio(p content.Part) bool {
	return p.Kind == content.KindAudio && strings.HasPrefix(p.Signature, audioIDPrefix)
}

// The introductions of media that follow in a user message because the message they belong to
// cannot carry them.
const answerMediaIntro = "Images and files of your previous answer:"

func resultMediaIntro(name, id string) string {
	return "Images and files the " + name + " call " + id + " returned:"
}

// responsesPart maps a part onto a Responses input content part.
func responsesPart(p content.Part) (out responses.ResponseInputContentUnionParam, ok bool, err error) {
	if p, ok, err = sendable(p); !ok {
		return out, false, err
	}
	switch p.Kind {
	case content.KindText:
		return responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: p.Text}}, true, nil
	case content.KindImage:
		if err := imageOK(Provider, p); err != nil {
			return out, false, err
		}
		return responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
			ImageURL: oai.String(imageURL(p)), Detail: responses.ResponseInputImageDetailAuto}}, true, nil
	case content.KindDocument:
		f := &responses.ResponseInputFileParam{}
		if p.URL != "" {
			if !wire.IsHTTP(p.URL) {
				return out, false, refuse(Provider, p, "file URLs must be http(s); send other files as bytes")
			}
			f.FileURL = oai.String(p.URL)
		} else {
			f.FileData = oai.String(dataURL(p))
			f.Filename = oai.String(orDefault(p.Name, "document"))
		}
		return responses.ResponseInputContentUnionParam{OfInputFile: f}, true, nil
	}
	return out, false, refuse(Provider, p, "the Responses API takes text, images and files, not audio; use Chat Completions (openai.New) for audio input")
}

// responsesContent maps a message's content onto Responses input content.
func responsesContent(parts iter.Seq[content.Part]) (responses.ResponseInputMessageContentListParam, error) {
	return wire.AppendParts(responses.ResponseInputMessageContentListParam(nil), parts, responsesPart)
}

// functionOutput maps a tool result onto function_call_output's output: its text alone, or,
// with media, an array of input_text, input_image and input_file items, as the API takes them.
func functionOutput(r chat.ToolResult) (responses.ResponseInputItemFunctionCallOutputOutputUnionParam, error) {
	var out responses.ResponseInputItemFunctionCallOutputOutputUnionParam
	for _, p := range r.Parts {
		if err := p.Validate(); err != nil {
			return out, err
		}
	}
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

func refuse(provider string, p content.Part, reason string) error {
	return &content.Unsupported{Provider: provider, Part: p, Reason: reason}
}
