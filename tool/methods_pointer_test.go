package tool

import "testing"

// A value whose tool-shaped methods have pointer receivers, passed without registration, gets an
// error that says to pass a pointer as well as how to choose the methods.
func TestMethodsValueOfPointerMethods(t *testing.T) {
	_, err := Methods(counter{})
	want := `tool: tool.counter registers no tool methods, and Methods offers a model only the methods a type registers or the Only option lists: mark them //wield:tool and run wield gen, or pass tool.Only("Inc", "Value"); and pass a *tool.counter: "Inc" has a pointer receiver`
	if err == nil || err.Error() != want {
		t.Errorf("Methods(counter{}) = %v\nwant %s", err, want)
	}
	if _, err := Methods(&counter{}); err == nil || err.Error() != `tool: *tool.counter registers no tool methods, and Methods offers a model only the methods a type registers or the Only option lists: mark them //wield:tool and run wield gen, or pass tool.Only("Inc", "Value")` {
		t.Errorf("Methods(&counter{}) = %v", err)
	}
}
