// Package chattest provides a scripted [chat.Model] for tests, in the spirit of
// net/http/httptest: it answers with the replies it was given, in order, records every prompt it
// receives, and streams each reply in small chunks the way real providers do (text in pieces,
// tool-call arguments split into fragments keyed by index, usage on the last chunk).
//
//	m := chattest.New(
//		chattest.Calls(chattest.Call("currentWeather", `{"location":"Paris"}`)),
//		chattest.Text("It is sunny in Paris."),
//	)
//	// ... run the code under test with m ...
//	prompts := m.Prompts() // what the model was sent, call by call
//
// When the script runs out, Call and Stream return an error wrapping [ErrScriptEnded] that says
// how many replies were scripted, so a test that makes one model call too many fails clearly.
//
// [Tool] is the other side of a turn: a tool.Tool a test sets field by field, which records the
// arguments of its calls; [Model.ToolResults] reads what the code under test sent the model back.
package chattest
