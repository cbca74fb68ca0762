package gemini

import (
	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
)

// userParts maps a message's content onto parts, Content then Parts, empty text left out.
func userParts(msg chat.Message) ([]*genai.Part, error) {
	var out []*genai.Part
	for p := range msg.AllParts() {
		if p.Kind == content.KindText && p.Text == "" && p.Signature == "" {
			continue
		}
		gp, err := part(p)
		if err != nil {
			return nil, err
		}
		out = append(out, gp)
	}
	return out, nil
}

// part maps a content part onto a Gemini part: text (with its signature, in place), inline
// bytes, or a file URI.
func part(p content.Part) (*genai.Part, error) {
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
	if p.URL != "" {
		if p.MediaType == "" {
			return nil, unsupported(p, "a file URI needs its media type")
		}
		return &genai.Part{FileData: &genai.FileData{FileURI: p.URL, MIMEType: p.MediaType, DisplayName: p.Name}, ThoughtSignature: sig}, nil
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: p.MediaType, Data: p.Data, DisplayName: p.Name}, ThoughtSignature: sig}, nil
}

// functionResponsePart maps a tool result's media onto a part of the function response, which
// Gemini 3 models read beside the response object.
func functionResponsePart(p content.Part) (*genai.FunctionResponsePart, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.URL != "" {
		if p.MediaType == "" {
			return nil, unsupported(p, "a file URI needs its media type")
		}
		return &genai.FunctionResponsePart{FileData: &genai.FunctionResponseFileData{FileURI: p.URL, MIMEType: p.MediaType, DisplayName: p.Name}}, nil
	}
	return &genai.FunctionResponsePart{InlineData: &genai.FunctionResponseBlob{MIMEType: p.MediaType, Data: p.Data, DisplayName: p.Name}}, nil
}

// mediaPart reads an inline or file part of an answer (an image the model drew).
func mediaPart(p *genai.Part) (content.Part, bool) {
	switch {
	case p.InlineData != nil && len(p.InlineData.Data) > 0:
		return content.Media(p.InlineData.Data, p.InlineData.MIMEType, p.InlineData.DisplayName), true
	case p.FileData != nil && p.FileData.FileURI != "":
		out := content.Media(nil, p.FileData.MIMEType, p.FileData.DisplayName)
		out.URL = p.FileData.FileURI
		return out, true
	}
	return content.Part{}, false
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: providerName, Part: p, Reason: reason}
}
