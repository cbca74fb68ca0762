package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/wield-ai/wield/internal/schema"
)

// Methods returns a tool for each exported method of obj, like Spring AI's
// ToolCallbacks.from(obj). A method becomes a tool when it has one of these forms:
//
//	func (ctx context.Context, in In) (Out, error)
//
// or the same without ctx, without in, without Out or without error, where In is a struct (or
// a pointer to one) whose fields are the tool's parameters; a method without in takes no
// parameters. Methods without Out return [Done] to the model.
//
// Tool names and descriptions come from [RegisterMethods] (which `wield gen` writes from
// `//wield:tool` directives and doc comments) when obj's type has registered methods; then only
// those methods become tools. Otherwise every exported method of a valid form does, named by
// [DefaultName] (GetCurrentDateTime becomes getCurrentDateTime) and described
// by that name. Methods of other forms are skipped and reported to the [OnSkip] callback; a
// registered method with an invalid form is an error. Two tools with one name are an error.
//
// The options apply to every tool.
func Methods(obj any, opts ...MethodsOption) ([]Tool, error) {
	tools, _, err := methods(obj, opts)
	return tools, err
}

// MethodsStrict is [Methods] but fails, listing them, when some exported method cannot be a
// tool, instead of skipping it. Methods left out because the type registered others are not
// an error.
func MethodsStrict(obj any, opts ...MethodsOption) ([]Tool, error) {
	tools, skipped, err := methods(obj, opts)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, s := range skipped {
		if !s.unregistered {
			bad = append(bad, s.String())
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("tool: %d methods of %T cannot be tools: %s", len(bad), obj, strings.Join(bad, "; "))
	}
	return tools, nil
}

type skipped struct {
	SkippedMethod
	unregistered bool
}

const notRegistered = "not registered as a tool (the type registers its tools with RegisterMethods)"

func methods(obj any, opts []MethodsOption) ([]Tool, []skipped, error) {
	if obj == nil {
		return nil, nil, errors.New("tool: Methods of nil")
	}
	cfg := &methodsConfig{}
	for _, o := range opts {
		if o != nil {
			o.applyMethods(cfg)
		}
	}
	if err := cfg.err(); err != nil {
		return nil, nil, fmt.Errorf("tool: %w", err)
	}
	v := reflect.ValueOf(obj)
	t := v.Type()
	if t.Kind() == reflect.Pointer && v.IsNil() {
		return nil, nil, fmt.Errorf("tool: Methods of a nil %v", t)
	}
	docs := lookupMethodDocs(derefType(t))
	var (
		tools []Tool
		skips []skipped
		names = map[string]string{} // tool name → method
	)
	skip := func(method, reason string, unregistered bool) {
		s := skipped{SkippedMethod{Method: method, Reason: reason}, unregistered}
		skips = append(skips, s)
		if cfg.onSkip != nil {
			cfg.onSkip(s.SkippedMethod)
		}
	}
	for i := range t.NumMethod() {
		m := t.Method(i)
		doc, registered := docs[m.Name]
		if docs != nil && !registered {
			skip(m.Name, notRegistered, true)
			continue
		}
		sig, reason := methodSignature(v.Method(i).Type())
		if reason != "" {
			if registered {
				return nil, nil, fmt.Errorf("tool: method %s of %v is registered as a tool but %s", m.Name, t, reason)
			}
			skip(m.Name, reason, false)
			continue
		}
		name := doc.Name
		if name == "" {
			name = DefaultName(m.Name)
		}
		if err := checkName(name); err != nil {
			return nil, nil, fmt.Errorf("method %s: %w", m.Name, err)
		}
		if other, dup := names[name]; dup {
			return nil, nil, fmt.Errorf("tool: methods %s and %s of %v are both named %q", other, m.Name, t, name)
		}
		names[name] = m.Name
		mt, err := newMethodTool(v.Method(i), sig, name, doc, &cfg.config)
		if err != nil {
			return nil, nil, fmt.Errorf("tool: method %s of %v: %w", m.Name, t, err)
		}
		tools = append(tools, mt)
	}
	// Methods with pointer receivers are not in the method set of a value: say so.
	if t.Kind() != reflect.Pointer {
		pt := reflect.PointerTo(t)
		for i := range pt.NumMethod() {
			m := pt.Method(i)
			if _, ok := t.MethodByName(m.Name); ok {
				continue
			}
			if _, registered := docs[m.Name]; docs != nil && !registered {
				continue
			}
			skip(m.Name, fmt.Sprintf("has a pointer receiver; pass a *%v to Methods", t), false)
		}
	}
	for name := range docs {
		if !slices.ContainsFunc(tools, func(tl Tool) bool { return names[tl.Definition().Name] == name }) &&
			!slices.ContainsFunc(skips, func(s skipped) bool { return s.Method == name }) {
			return nil, nil, fmt.Errorf("tool: method %s is registered as a tool of %v but does not exist", name, t)
		}
	}
	return tools, skips, nil
}

// signature is a method shape that can be a tool.
type signature struct {
	ctx    bool
	in     reflect.Type // nil: no parameters
	out    reflect.Type // nil: no result value
	hasErr bool
}

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errorType = reflect.TypeFor[error]()
)

// methodSignature checks a method type (without receiver) and says why it cannot be a tool.
func methodSignature(ft reflect.Type) (signature, string) {
	var sig signature
	if ft.IsVariadic() {
		return sig, "is variadic"
	}
	params := make([]reflect.Type, 0, ft.NumIn())
	for i := range ft.NumIn() {
		params = append(params, ft.In(i))
	}
	if len(params) > 0 && params[0] == ctxType {
		sig.ctx = true
		params = params[1:]
	}
	if slices.Contains(params, ctxType) {
		return sig, "takes context.Context after its parameters; it must come first"
	}
	switch len(params) {
	case 0:
	case 1:
		p := params[0]
		if et := derefType(p); et.Kind() != reflect.Struct || isLeafType(et) {
			return sig, fmt.Sprintf("takes a %v; a tool method takes at most one struct, whose fields are the parameters", p)
		}
		sig.in = p
	default:
		return sig, fmt.Sprintf("takes %d parameters; a tool method takes at most one struct, whose fields are the parameters", len(params))
	}
	results := make([]reflect.Type, 0, ft.NumOut())
	for i := range ft.NumOut() {
		results = append(results, ft.Out(i))
	}
	if len(results) > 0 && results[len(results)-1] == errorType {
		sig.hasErr = true
		results = results[:len(results)-1]
	}
	switch len(results) {
	case 0:
	case 1:
		switch results[0].Kind() {
		case reflect.Func, reflect.Chan, reflect.UnsafePointer, reflect.Complex64, reflect.Complex128:
			return sig, fmt.Sprintf("returns a %v, which cannot be sent to a model", results[0])
		}
		sig.out = results[0]
	default:
		if sig.hasErr {
			return sig, fmt.Sprintf("returns %d values and an error; a tool method returns at most a value and an error", len(results))
		}
		return sig, fmt.Sprintf("returns %d values; a tool method returns at most a value and an error", len(results))
	}
	return sig, ""
}

// DefaultName returns the name [Methods] gives the tool of a Go method that has no registered
// name: the method's name with its leading capitals lowered (GetTime → getTime, URL → url,
// HTTPServer → httpServer). `wield gen` uses it to report clashing tool names before run time.
func DefaultName(method string) string {
	r := []rune(method)
	n := 0
	for n < len(r) && unicode.IsUpper(r[n]) {
		n++
	}
	switch {
	case n == 0:
		return method
	case n > 1 && n < len(r) && unicode.IsLower(r[n]):
		n-- // keep the capital that starts the next word
	}
	for i := range n {
		r[i] = unicode.ToLower(r[i])
	}
	return string(r)
}

type methodTool struct {
	def  Definition
	meta Metadata
	fn   reflect.Value
	sig  signature
	in   *schema.Codec
	out  *result
}

var emptyStruct = reflect.TypeFor[struct{}]()

func newMethodTool(fn reflect.Value, sig signature, name string, doc MethodDoc, cfg *config) (*methodTool, error) {
	inType := sig.in
	if inType == nil {
		inType = emptyStruct // no parameters: the arguments must be an empty object
	}
	in, err := newInput(inType, nil)
	if err != nil {
		return nil, err
	}
	desc := doc.Description
	if desc == "" {
		desc = name
	}
	meta := cfg.metadata()
	meta.ReturnDirect = meta.ReturnDirect || doc.ReturnDirect
	def := Definition{Name: name, Description: desc, InputSchema: bytes.Clone(in.Schema())}
	if sig.out != nil && cfg.converter == nil {
		def.OutputSchema = outputSchema(sig.out)
	}
	return &methodTool{def: def, meta: meta, fn: fn, sig: sig, in: in, out: newResult(sig.out, cfg.converter)}, nil
}

func (t *methodTool) Definition() Definition { return t.def }
func (t *methodTool) Metadata() Metadata     { return t.meta }

func (t *methodTool) Call(ctx context.Context, args string) (string, error) {
	var argv [2]reflect.Value
	callArgs := argv[:0]
	if t.sig.ctx {
		callArgs = append(callArgs, reflect.ValueOf(&ctx).Elem())
	}
	if t.sig.in != nil {
		p := reflect.New(derefType(t.sig.in))
		if err := t.in.Decode(args, p.Interface()); err != nil {
			return "", err
		}
		if t.sig.in.Kind() == reflect.Pointer {
			callArgs = append(callArgs, p)
		} else {
			callArgs = append(callArgs, p.Elem())
		}
	} else if err := t.in.Decode(args, nil); err != nil {
		return "", err
	}
	res := t.fn.Call(callArgs)
	if t.sig.hasErr {
		if err, _ := res[len(res)-1].Interface().(error); err != nil {
			return "", err
		}
	}
	var out any
	if t.sig.out != nil {
		out = res[0].Interface()
	}
	return t.out.convert(ctx, out)
}

// ValidatesArguments marks the tool as one that validates its own arguments.
func (t *methodTool) ValidatesArguments(schema.Private) {}
