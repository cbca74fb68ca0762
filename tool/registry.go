package tool

import (
	"maps"
	"reflect"
	"sync"

	"github.com/wield-ai/wield/internal/methodtools"
	"github.com/wield-ai/wield/internal/schema"
)

// MethodDoc describes one method tool of a type. `wield gen` writes these from `//wield:tool`
// directives and doc comments into a registration file calling [RegisterMethods]; they can also
// be written by hand.
type MethodDoc struct {
	// Method is the Go method name.
	Method string
	// Name is the tool name; empty means [DefaultName] of the method.
	Name string
	// Description tells the model what the tool does; empty means the tool name.
	Description string
	// ReturnDirect marks the tool's result as the final answer of a turn (see
	// [Metadata.ReturnDirect]).
	ReturnDirect bool
}

// TypeDoc documents a struct type for schema inference: `wield gen` writes it from the type's
// doc comment and its fields' comments.
type TypeDoc struct {
	// Description is the object's description in the schema.
	Description string
	// Fields maps Go field names to property descriptions. A field's `jsonschema:"…"` tag, when
	// present, wins over this.
	Fields map[string]string
}

// registry is the one piece of global state of the package: documentation generated from
// source, registered from init functions and read when tools are built. Type docs are kept by
// schema inference, in the internal schema package.
var registry struct {
	mu      sync.RWMutex
	methods map[reflect.Type]map[string]MethodDoc
}

// RegisterMethods declares the method tools of type T (or *T) for [Methods]: once a type has
// registered methods, only those become tools, with the names, descriptions and return-direct
// settings given here, the way @Tool annotations select methods in Spring AI. Later
// registrations of a method replace earlier ones. It is safe for concurrent use, but is meant
// for init functions: tools already built keep what they were built with.
func RegisterMethods[T any](methods ...MethodDoc) {
	methodtools.Install(anyMethods)
	t := derefType(reflect.TypeFor[T]())
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.methods == nil {
		registry.methods = map[reflect.Type]map[string]MethodDoc{}
	}
	m := registry.methods[t]
	if m == nil {
		m = map[string]MethodDoc{}
		registry.methods[t] = m
	}
	for _, d := range methods {
		m[d.Method] = d
	}
}

// anyMethods is [Methods] for package client, which reaches it only through the methodtools
// hook, so that programs registering no method tools do not link it.
func anyMethods(v any) (any, error) { return Methods(v) }

// RegisterType declares the documentation of struct type T used by schema inference (see
// [SchemaOf]). It replaces an earlier registration of T. It is safe for concurrent use, but is
// meant for init functions: schemas of tools already built do not change.
func RegisterType[T any](doc TypeDoc) {
	schema.RegisterTypeDoc(reflect.TypeFor[T](), schema.TypeDoc{Description: doc.Description, Fields: doc.Fields})
}

// lookupMethodDocs returns the registered methods of t, or nil if t has none.
func lookupMethodDocs(t reflect.Type) map[string]MethodDoc {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	return maps.Clone(registry.methods[t])
}
