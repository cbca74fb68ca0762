package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3/packages/respjson"

	"github.com/wield-ai/wield/content"
)

// This file reads the media the APIs answer with: Chat Completions' audio answers, the images
// compatible servers put beside an answer's text, and the Responses API's generated images.

// audioTypes maps the audio output formats of Chat Completions onto media types; opus comes in
// an Ogg container and pcm16 is raw 16-bit samples.
var audioTypes = map[string]string{"wav": "audio/wav", "mp3": "audio/mpeg", "flac": "audio/flac", "opus": "audio/ogg", "aac": "audio/aac", "pcm16": "audio/L16"}

// audioFormat returns the audio output format a request asked for: in the SDK's parameters (set
// through ExtraParams) or in ExtraBody's "audio" member.
func audioFormat(typed string, body map[string]any) string {
	if typed != "" {
		return typed
	}
	switch a := body["audio"].(type) {
	case map[string]any:
		f, _ := a["format"].(string)
		return f
	case map[string]string:
		return a["format"]
	}
	return ""
}

// audioMediaType names audio answer bytes: by the format asked for, else by their first bytes
// (raw PCM, the one format without a header, when they tell nothing).
func audioMediaType(format string, data []byte) string {
	if mt := audioTypes[format]; mt != "" {
		return mt
	}
	switch {
	case len(data) >= 12 && bytes.HasPrefix(data, []byte("RIFF")) && string(data[8:12]) == "WAVE":
		return "audio/wav"
	case bytes.HasPrefix(data, []byte("ID3")), len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0 && data[1]&0x06 != 0:
		return "audio/mpeg"
	case bytes.HasPrefix(data, []byte("fLaC")):
		return "audio/flac"
	case bytes.HasPrefix(data, []byte("OggS")):
		return "audio/ogg"
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xF6 == 0xF0:
		return "audio/aac"
	}
	return "audio/L16"
}

// audioPart is an audio answer as a part: its bytes, and its id in Signature, which marks it as
// this API's own (see assistantContent).
func audioPart(id string, data []byte, format string) content.Part {
	p := content.Audio(data, audioMediaType(format, data))
	p.Signature = id
	return p
}

// decodeBase64 decodes standard base64, padded or not.
func decodeBase64(s string) ([]byte, bool) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "=")); err != nil {
			return nil, false
		}
	}
	return b, true
}

// urlPart reads an image URL of an answer: a data URL becomes the image's bytes, with the media
// type it names (or the bytes show); any other URL stays a URL.
func urlPart(u string) (content.Part, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		if u == "" {
			return content.Part{}, false
		}
		return content.ImageURL(u), true
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return content.Part{}, false
	}
	b, ok := decodeBase64(data)
	if !ok || len(b) == 0 {
		return content.Part{}, false
	}
	mt, _, _ := strings.Cut(strings.TrimSuffix(meta, ";base64"), ";")
	if !strings.HasPrefix(mt, "image/") {
		mt = content.Detect(b)
	}
	if !strings.HasPrefix(mt, "image/") {
		return content.Part{}, false
	}
	return content.Image(b, mt), true
}

// extraImages reads the images OpenRouter and Vercel's AI Gateway return beside an answer's text,
// in the "images" member of the message (or of a stream's delta):
// [{"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}]. Entries it cannot read
// are skipped.
func extraImages(extra map[string]respjson.Field) []content.Part {
	f, ok := extra["images"]
	if !ok || f.Raw() == "" || f.Raw() == respjson.Null {
		return nil
	}
	var images []struct {
		Type     string `json:"type"`
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
	}
	if json.Unmarshal([]byte(f.Raw()), &images) != nil {
		return nil
	}
	var out []content.Part
	for _, im := range images {
		if im.Type != "" && im.Type != "image_url" {
			continue
		}
		if p, ok := urlPart(im.ImageURL.URL); ok {
			out = append(out, p)
		}
	}
	return out
}

// generatedImage maps an image_generation_call output item onto an image part carrying the
// item's id, by which the API takes it back. ok is false while it has no image.
func generatedImage(id, result, outputFormat string) (content.Part, bool) {
	b, ok := decodeBase64(result)
	if !ok || len(b) == 0 {
		return content.Part{}, false
	}
	mt := content.Detect(b)
	if !strings.HasPrefix(mt, "image/") {
		mt = "image/" + orDefault(outputFormat, "png")
		if outputFormat == "jpg" {
			mt = "image/jpeg"
		}
	}
	p := content.Image(b, mt)
	p.Signature = id
	return p, true
}

// streamedAudio gathers the fragments of a streamed audio answer.
type streamedAudio struct {
	id   string
	data []string
}

func (a *streamedAudio) add(id, data string) {
	if a.id == "" {
		a.id = id
	}
	if data != "" {
		a.data = append(a.data, data)
	}
}

// part returns the whole audio answer. Fragments are usually base64 of consecutive bytes, each
// padded on its own; if the whole does not decode, each is decoded alone.
func (a *streamedAudio) part(format string) (content.Part, bool) {
	if len(a.data) == 0 {
		return content.Part{}, false
	}
	b, ok := decodeBase64(strings.Join(a.data, ""))
	if !ok {
		b = nil
		for _, d := range a.data {
			db, ok := decodeBase64(d)
			if !ok {
				return content.Part{}, false
			}
			b = append(b, db...)
		}
	}
	a.data = nil
	if len(b) == 0 {
		return content.Part{}, false
	}
	return audioPart(a.id, b, format), true
}
