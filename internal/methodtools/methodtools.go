// Package methodtools lets package client make tools of a value's methods without linking the
// reflection that does it into every program. tool.Methods calls reflect's MethodByName with
// names known only at run time, and a program that can reach such a call keeps every exported
// method of every type it holds: for a program on openai-go, the whole SDK, twice the size.
// So client does not call tool.Methods: it calls the function package tool installs here when a
// type registers method tools (tool.RegisterMethods, which `wield gen` writes), the only way a
// value's methods become tools without naming them.
package methodtools

import "sync/atomic"

var methods atomic.Pointer[func(v any) (any, error)]

// Install sets the function that returns the tools of v's methods, as a []tool.Tool.
func Install(f func(v any) (any, error)) { methods.Store(&f) }

// Get returns the installed function, or nil if no type registered method tools.
func Get() func(v any) (any, error) {
	if f := methods.Load(); f != nil {
		return *f
	}
	return nil
}
