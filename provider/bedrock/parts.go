package bedrock

import (
	"fmt"
	"iter"
	"strings"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"

	"github.com/wield-ai/wield/content"
)

var (
	imageFormats = map[string]types.ImageFormat{
		"image/png": types.ImageFormatPng, "image/jpeg": types.ImageFormatJpeg,
		"image/gif": types.ImageFormatGif, "image/webp": types.ImageFormatWebp,
	}
	documentFormats = map[string]types.DocumentFormat{
		"application/pdf": types.DocumentFormatPdf, "text/csv": types.DocumentFormatCsv,
		"application/msword": types.DocumentFormatDoc,
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document": types.DocumentFormatDocx,
		"application/vnd.ms-excel": types.DocumentFormatXls,
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": types.DocumentFormatXlsx,
		"text/html": types.DocumentFormatHtml, "text/plain": types.DocumentFormatTxt, "text/markdown": types.DocumentFormatMd,
	}
	audioFormats = map[string]types.AudioFormat{
		"audio/mpeg": types.AudioFormatMp3, "audio/mp3": types.AudioFormatMp3, "audio/wav": types.AudioFormatWav,
		"audio/x-wav": types.AudioFormatWav, "audio/ogg": types.AudioFormatOgg, "audio/opus": types.AudioFormatOpus,
		"audio/flac": types.AudioFormatFlac, "audio/aac": types.AudioFormatAac, "audio/mp4": types.AudioFormatMp4,
	}
)

// media is a part as Converse's image, document and audio blocks take it: the format and the
// source (bytes, or an s3:// location).
type media struct {
	image *types.ImageBlock
	doc   *types.DocumentBlock
	audio *types.AudioBlock
}

func mediaOf(p content.Part, docs *int) (media, error) {
	var m media
	if p.URL != "" && !strings.HasPrefix(p.URL, "s3://") {
		return m, unsupported(p, "Converse takes media as bytes or s3:// locations")
	}
	s3 := &types.S3Location{Uri: aws.String(p.URL)}
	switch p.Kind {
	case content.KindImage:
		f, ok := imageFormats[p.MediaType]
		if !ok {
			return m, unsupported(p, "Converse takes PNG, JPEG, GIF and WebP images")
		}
		m.image = &types.ImageBlock{Format: f}
		if p.URL != "" {
			m.image.Source = &types.ImageSourceMemberS3Location{Value: *s3}
		} else {
			m.image.Source = &types.ImageSourceMemberBytes{Value: p.Data}
		}
	case content.KindDocument:
		f, ok := documentFormats[p.MediaType]
		if !ok {
			return m, unsupported(p, "Converse takes PDF, CSV, DOC, DOCX, XLS, XLSX, HTML, TXT and MD documents")
		}
		*docs++
		m.doc = &types.DocumentBlock{Format: f, Name: aws.String(documentName(p.Name, *docs))}
		if p.URL != "" {
			m.doc.Source = &types.DocumentSourceMemberS3Location{Value: *s3}
		} else {
			m.doc.Source = &types.DocumentSourceMemberBytes{Value: p.Data}
		}
	case content.KindAudio:
		f, ok := audioFormats[p.MediaType]
		if !ok || p.URL != "" {
			return m, unsupported(p, "Converse takes MP3, WAV, OGG, Opus, FLAC, AAC and MP4 audio as bytes")
		}
		m.audio = &types.AudioBlock{Format: f, Source: &types.AudioSourceMemberBytes{Value: p.Data}}
	default:
		return m, unsupported(p, "unknown part")
	}
	return m, nil
}

// documentName makes a name Converse accepts (letters, digits, single spaces, hyphens,
// parentheses, brackets) and that differs between the documents of one request.
func documentName(name string, n int) string {
	name = strings.TrimSuffix(name, extension(name))
	var b strings.Builder
	space := false
	for _, r := range name {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-()[]", r):
			b.WriteRune(r)
			space = false
		case !space && b.Len() > 0:
			b.WriteRune(' ')
			space = true
		}
	}
	out := strings.TrimSpace(b.String())
	if out == "" {
		out = "document"
	}
	return fmt.Sprintf("%s %d", out, n)
}

func extension(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// eachPart walks a message's or result's content: validated, empty text left out, media mapped
// by mediaOf (docs counts the request's documents, to name them apart).
func eachPart(parts iter.Seq[content.Part], docs *int, onText func(string), onMedia func(content.Part, media) error) error {
	for p := range parts {
		if err := p.Validate(); err != nil {
			return err
		}
		if p.Kind == content.KindText {
			if p.Text != "" {
				onText(p.Text)
			}
			continue
		}
		m, err := mediaOf(p, docs)
		if err != nil {
			return err
		}
		if err := onMedia(p, m); err != nil {
			return err
		}
	}
	return nil
}

// contentBlocks maps a message's content onto blocks.
func contentBlocks(blocks []types.ContentBlock, parts iter.Seq[content.Part], docs *int) ([]types.ContentBlock, error) {
	err := eachPart(parts, docs,
		func(text string) { blocks = append(blocks, &types.ContentBlockMemberText{Value: text}) },
		func(_ content.Part, m media) error {
			switch {
			case m.image != nil:
				blocks = append(blocks, &types.ContentBlockMemberImage{Value: *m.image})
			case m.doc != nil:
				blocks = append(blocks, &types.ContentBlockMemberDocument{Value: *m.doc})
			case m.audio != nil:
				blocks = append(blocks, &types.ContentBlockMemberAudio{Value: *m.audio})
			}
			return nil
		})
	return blocks, err
}

// toolResultContent maps a tool result's content onto toolResult blocks: text, images and
// documents, which Converse takes there; audio it does not.
func toolResultContent(parts iter.Seq[content.Part], docs *int) ([]types.ToolResultContentBlock, error) {
	out := []types.ToolResultContentBlock{}
	err := eachPart(parts, docs,
		func(text string) { out = append(out, &types.ToolResultContentBlockMemberText{Value: text}) },
		func(p content.Part, m media) error {
			switch {
			case m.image != nil:
				out = append(out, &types.ToolResultContentBlockMemberImage{Value: *m.image})
			case m.doc != nil:
				out = append(out, &types.ToolResultContentBlockMemberDocument{Value: *m.doc})
			default:
				return unsupported(p, "a Converse tool result takes text, images and documents")
			}
			return nil
		})
	return out, err
}

func unsupported(p content.Part, reason string) error {
	return &content.Unsupported{Provider: ProviderName, Part: p, Reason: reason}
}
