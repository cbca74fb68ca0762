package tool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wield-ai/wield/internal/schema"
)

// Methods returns a tool for each chosen method of obj, like Spring AI's
// ToolCallbacks.from(obj) with its @Tool annotations. A method is chosen when obj's type
// registers it ([RegisterMethods], which `wield gen` writes from `//wield:tool` directives and
// doc comments) or when the [Only] option lists it; nothing else is ever offered to a model, so
// Close, Reset, String or DeleteEverything stay out of its reach unless asked for. A type that
// registers nothing, passed without [Only], is an error that names the methods that could be
// tools.
//
// A chosen method must have one of these forms:
//
//	func (ctx context.Context, in In) (Out, error)
//
// or the same without ctx, without in, without Out or without error, where In is a struct (or
// a pointer to one) whose fields are the tool's parameters; a method without in takes no
// parameters. Methods without Out return [Done] to the model. A chosen method of another form,
// or one in the method set of *T only when obj is a T, is an error.
//
// Tool names and descriptions come from the registration; otherwise a tool is named by
// [DefaultName] (GetCurrentDateTime becomes getCurrentDateTime) and described by that name,
// which a model can do little with, so it is logged as a warning. Two tools with one name are
// an error. The options apply to every tool.
func Methods(obj any, opts ...MethodsOption) ([]Tool, error) {
	if obj == nil {
		return nil, errors.New("tool: Methods of nil")
	}
	cfg := &methodsConfig{}
	for _, o := range opts {
		if o != nil {
			o.applyMethods(cfg)
		}
	}
	if err := cfg.err(); err != nil {
		return nil, fmt.Errorf("tool: %w", err)
	}
	v := reflect.ValueOf(obj)
	t := v.Type()
	if t.Kind() == reflect.Pointer && v.IsNil() {
		return nil, fmt.Errorf("tool: Methods of a nil %v", t)
	}
	docs := lookupMethodDocs(derefType(t))
	chosen := cfg.only
	if chosen == nil {
		if len(docs) == 0 {
			return nil, noneChosen(t)
		}
		chosen = slices.Sorted(maps.Keys(docs))
	}
	var (
		tools []Tool
		names = map[string]string{} // tool name → method
	)
	for _, method := range chosen {
		m, ok := t.MethodByName(method)
		if !ok {
			if _, onPointer := reflect.PointerTo(t).MethodByName(method); onPointer && t.Kind() != reflect.Pointer {
				return nil, fmt.Errorf("tool: method %s of %v has a pointer receiver; pass a *%v to Methods", method, t, t)
			}
			if _, registered := docs[method]; registered {
				return nil, fmt.Errorf("tool: method %s is registered as a tool of %v but does not exist", method, t)
			}
			return nil, fmt.Errorf("tool: %v has no exported method %s", t, method)
		}
		doc, registered := docs[method]
		sig, reason := methodSignature(v.Method(m.Index).Type())
		if reason != "" {
			how := "listed"
			if registered {
				how = "registered"
			}
			return nil, fmt.Errorf("tool: method %s of %v is %s as a tool but %s", method, t, how, reason)
		}
		name := doc.Name
		if name == "" {
			name = DefaultName(method)
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("method %s: %w", method, err)
		}
		if other, dup := names[name]; dup {
			return nil, fmt.Errorf("tool: methods %s and %s of %v are both named %q", other, method, t, name)
		}
		names[name] = method
		mt, err := newMethodTool(v.Method(m.Index), sig, name, doc, &cfg.config)
		if err != nil {
			return nil, fmt.Errorf("tool: method %s of %v: %w", method, t, err)
		}
		if doc.Description == "" {
			slog.Warn("tool: a method tool is described only by its name; register a description (wield gen reads doc comments)",
				"tool", name, "method", method, "type", t.String())
		}
		tools = append(tools, mt)
	}
	return tools, nil
}

// noneChosen is the error for a type that registers no methods, passed without Only: it lists
// the methods that could be tools, and says to pass a pointer when a value was passed and some
// of them have pointer receivers.
func noneChosen(t reflect.Type) error {
	var (
		candidates []string
		onPointer  []string // candidates only *t has, when t is not a pointer
	)
	pt := t
	if t.Kind() != reflect.Pointer {
		pt = reflect.PointerTo(t)
	}
	for i := range pt.NumMethod() {
		m := pt.Method(i)
		in := make([]reflect.Type, 0, m.Type.NumIn()-1)
		for j := 1; j < m.Type.NumIn(); j++ {
			in = append(in, m.Type.In(j))
		}
		out := make([]reflect.Type, 0, m.Type.NumOut())
		for j := range m.Type.NumOut() {
			out = append(out, m.Type.Out(j))
		}
		if _, reason := methodSignature(reflect.FuncOf(in, out, m.Type.IsVariadic())); reason == "" {
			candidates = append(candidates, strconv.Quote(m.Name))
			if _, onValue := t.MethodByName(m.Name); !onValue {
				onPointer = append(onPointer, strconv.Quote(m.Name))
			}
		}
	}
	msg := fmt.Sprintf("tool: %v registers no tool methods, and Methods offers a model only the methods a type registers or the Only option lists", t)
	if len(candidates) == 0 {
		return errors.New(msg + "; it has none of a form a tool can have")
	}
	msg = fmt.Sprintf("%s: mark them //wield:tool and run wield gen, or pass tool.Only(%s)", msg, strings.Join(candidates, ", "))
	switch len(onPointer) {
	case 0:
	case 1:
		msg += fmt.Sprintf("; and pass a *%v: %s has a pointer receiver", t, onPointer[0])
	default:
		msg += fmt.Sprintf("; and pass a *%v: %s have pointer receivers", t, strings.Join(onPointer, ", "))
	}
	return errors.New(msg)
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
	described
	fn  reflect.Value
	sig signature
	in  *schema.Codec
	out *result
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
	return &methodTool{described: described{def, meta}, fn: fn, sig: sig, in: in, out: newResult(sig.out, cfg.converter)}, nil
}

func (t *methodTool) Call(ctx context.Context, args string) (string, error) {
	r, err := t.CallParts(ctx, args)
	return r.String(), err
}

// CallParts calls the method and converts its result, keeping any parts it holds.
func (t *methodTool) CallParts(ctx context.Context, args string) (Result, error) {
	var argv [2]reflect.Value
	callArgs := argv[:0]
	if t.sig.ctx {
		callArgs = append(callArgs, reflect.ValueOf(&ctx).Elem())
	}
	if t.sig.in != nil {
		p := reflect.New(t.sig.in)
		if err := t.in.Decode(args, p.Interface()); err != nil {
			return Result{}, err
		}
		if in := p.Elem(); in.Kind() == reflect.Pointer && in.IsNil() {
			in.Set(reflect.New(in.Type().Elem())) // nothing was decoded: a struct without fields
		}
		callArgs = append(callArgs, p.Elem())
	} else if err := t.in.Decode(args, nil); err != nil {
		return Result{}, err
	}
	res := t.fn.Call(callArgs)
	if t.sig.hasErr {
		if err, _ := res[len(res)-1].Interface().(error); err != nil {
			return Result{}, err
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
