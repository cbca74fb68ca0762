package tool

import (
	"reflect"
	"testing"
	"time"
)

// Options that apply to one constructor only do not compile with the others: WithInputSchema is
// a FuncOption only, Only a MethodsOption only, and the common options are all three.
func TestOptionsTypedPerConstructor(t *testing.T) {
	funcOpt := reflect.TypeFor[FuncOption]()
	methodsOpt := reflect.TypeFor[MethodsOption]()
	newOpt := reflect.TypeFor[NewOption]()
	for _, tc := range []struct {
		name                string
		opt                 any
		forFunc, forMethods bool
		forNew              bool
	}{
		{"WithInputSchema", WithInputSchema([]byte(`{"type":"object"}`)), true, false, false},
		{"Only", Only("Ping"), false, true, false},
		{"ReturnDirect", ReturnDirect(), true, true, true},
		{"Sequential", Sequential(), true, true, true},
		{"WithTimeout", WithTimeout(time.Second), true, true, true},
		{"WithConverter", WithConverter(DefaultConverter{}), true, true, true},
	} {
		typ := reflect.TypeOf(tc.opt)
		if got := typ.Implements(funcOpt); got != tc.forFunc {
			t.Errorf("%s is a FuncOption: %v, want %v", tc.name, got, tc.forFunc)
		}
		if got := typ.Implements(methodsOpt); got != tc.forMethods {
			t.Errorf("%s is a MethodsOption: %v, want %v", tc.name, got, tc.forMethods)
		}
		if got := typ.Implements(newOpt); got != tc.forNew {
			t.Errorf("%s is a NewOption: %v, want %v", tc.name, got, tc.forNew)
		}
	}
}
