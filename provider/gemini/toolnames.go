package gemini

import "github.com/wield-ai/wield/provider/internal/toolname"

// wireNames gives the request's function declarations, its allowed function names and the
// function calls and responses of its history names the API accepts, as names maps them.
func wireNames(r *request, names *toolname.Map) {
	if !names.Renames() {
		return
	}
	for _, t := range r.config.Tools {
		for _, fd := range t.FunctionDeclarations {
			fd.Name = names.Wire(fd.Name)
		}
	}
	if tc := r.config.ToolConfig; tc != nil && tc.FunctionCallingConfig != nil {
		for i, n := range tc.FunctionCallingConfig.AllowedFunctionNames {
			tc.FunctionCallingConfig.AllowedFunctionNames[i] = names.Wire(n)
		}
	}
	for _, c := range r.contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionCall != nil:
				p.FunctionCall.Name = names.Wire(p.FunctionCall.Name)
			case p.FunctionResponse != nil:
				p.FunctionResponse.Name = names.Wire(p.FunctionResponse.Name)
			}
		}
	}
}

// newDecoderFor returns a decoder giving the calls of a request's answer the tools' own names.
func newDecoderFor(r *request) *decoder {
	d := newDecoder()
	d.names = r.names
	return d
}
