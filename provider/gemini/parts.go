package gemini

import (
	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/splice"
)

// backend is what the part mapping needs to know of the API it writes for.
type backend struct {
	// vertex: Vertex AI, which takes display names on a part's media and file URIs in function
	// responses; the Gemini Developer API takes neither.
	vertex bool
}

// userParts maps a message's content onto parts, Content then Parts, empty text left out.
func (b backend) userParts(msg chat.Message) ([]*genai.Part, error) {
	var out []*genai.Part
	for p := range msg.AllParts() {
		if p.Kind == content.KindText && p.Text == "" && p.Signature == "" {
			continue
		}
		gp, err := b.part(p)
		if err != nil {
			return nil, err
		}
		out = append(out, gp)
	}
	return out, nil
}

// part maps a content part onto a Gemini part: text (with its signature, in place), inline
// bytes, or a file URI. A part's name goes as the media's display name on Vertex AI only: Google's
// SDKs refuse it for the Gemini Developer API.
func (b backend) part(p content.Part) (*genai.Part, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	sig, err := decodeSignature(p.Signature)
	if err != nil {
		return nil, err
	}
	if p.Kind == content.KindText {
		return &genai.Part{Text: p.Text, ThoughtSignature: sig}, nil
	}
	name := ""
	if b.vertex {
		name = p.Name
	}
	if p.URL != "" {
		if p.MediaType == "" {
			return nil, unsupported(p, "a file URI needs its media type")
		}
		return &genai.Part{FileData: &genai.FileData{FileURI: p.URL, MIMEType: p.MediaType, DisplayName: name}, ThoughtSignature: sig}, nil
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: p.MediaType, Data: splice.Bytes(p.Data), DisplayName: name}, ThoughtSignature: sig}, nil
}

// functionResponsePart maps a tool result's media onto a part of the function response, which
// Gemini 3 models read beside the response object. Its name goes as the display name, which the
// response object may reference ({"$ref": name}). File URIs are Vertex AI's only.
func (b backend) functionResponsePart(p content.Part) (*genai.FunctionResponsePart, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.URL != "" {
		if !b.vertex {
			return nil, unsupported(p, "the Gemini API takes a function response's media as bytes only (file URIs there are Vertex AI's); send the bytes")
		}
		if p.MediaType == "" {
			return nil, unsupported(p, "a file URI needs its media type")
		}
		return &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{FileURI: p.URL, MIMEType: p.MediaType, DisplayName: p.Name}}, nil
	}
	return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.MediaType, Data: splice.Bytes(p.Data), DisplayName: p.Name}}, nil
}

// mediaPart reads an inline or file part of an answer (an image the model drew).
func mediaPart(p *genai.Part) (content.Part, bool) {
	switch {
	case p.InlineData != nil && len(p.InlineData.Data) > 0:
		mt := p.InlineData.MIMEType
		if mt == "" {
			mt = content.Detect(p.InlineData.Data) // so the part can go back as it came
		}
		return content.Media(p.InlineData.Data, mt, p.InlineData.DisplayName), true
	case p.FileData != nil && p.FileData.FileURI != "":
		out := content.Media(nil, p.FileData.MIMEType, p.FileData.DisplayName)
		out.URL = p.FileData.FileURI
		return out, true
	}
	return content.Part{}, false
}

// dataFields are the members of a part's data oneof in the REST API: a part needs one of them.
var dataFields = []string{
	"text", "inlineData", "fileData", "functionCall", "functionResponse",
	"executableCode", "codeExecutionResult", "toolCall", "toolResponse",
}

// keepEmptyText gives a signed part that has no data member back its empty text, in the request
// body the SDK is about to send. Such a part came as {"text":"","thoughtSignature":…}; the SDK's
// Part drops an empty text when it encodes it, and the part would go back as a signature alone,
// not in the shape it arrived in (the shape Google's other SDKs send back).
func keepEmptyText(body map[string]any) map[string]any {
	for _, c := range objects(body["contents"]) {
		for _, pm := range objects(c["parts"]) {
			if pm["thoughtSignature"] == nil {
				continue
			}
			empty := true
			for _, k := range dataFields {
				if _, ok := pm[k]; ok {
					empty = false
					break
				}
			}
			if empty {
				pm["text"] = ""
			}
		}
	}
	return body
}

// objects returns the objects of a JSON array in the SDK's request body, which holds them as
// []map[string]any or as []any.
func objects(v any) []map[string]any {
	switch v := v.(type) {
	case []map[string]any:
		return v
	case []any:
		out := make([]map[string]any, 0, len(v))
		for _, x := range v {
			if m, ok := x.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// hasBareSignature reports whether contents hold a part with a signature and no data: the parts
// [keepEmptyText] restores.
func hasBareSignature(contents []*genai.Content) bool {
	for _, c := range contents {
		for _, p := range c.Parts {
			if p != nil && len(p.ThoughtSignature) > 0 && p.Text == "" && p.InlineData == nil && p.FileData == nil &&
				p.FunctionCall == nil && p.FunctionResponse == nil && p.ExecutableCode == nil &&
				p.CodeExecutionResult == nil && p.ToolCall == nil && p.ToolResponse == nil {
				return true
			}
		}
	}
	return false
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: providerName, Part: p, Reason: reason}
}
