// Package examples holds the Spring AI tool-calling documentation's examples as runnable wield
// programs, one per directory:
//
//   - datetime: DateTimeTools (getCurrentDateTime, setAlarm), method tools via tool.Methods.
//   - customer: CustomerTools reading the tenant from the tool context.
//   - weather: the currentWeather function tool via tool.Func.
//   - returndirect: a return-direct tool whose result is the answer.
//   - usercontrolled: the loop driven by the application with toolcall.Manager, call and stream.
//   - memory: chat memory outside the tool loop (default) and inside it.
//   - observer: an advisor inside the loop observing every iteration, and the event stream.
//   - toolsearch: the Tool Search Tool over a catalog of service tools.
//   - augment: tool argument augmentation capturing the model's reasoning with each call.
//   - mcpdelegation: MCP Mesh delegation; the loop runs here, every tool call in a separate
//     MCP server process (./mcpdelegation/toolserver), with the client's loop and by hand.
//   - approval: approval before destructive tools, a tool's interrupt, and a turn stopped in one
//     client and resumed from SQLite in another, with approved, edited and rejected calls.
//   - subagent: a client as another client's tool, its events in the caller's stream and its
//     approval surfacing to the caller and resumed back down.
//   - a2a: two agents over the Agent2Agent protocol on loopback: one served as an A2A agent, the
//     other calling it as a tool; an approval crosses the boundary and is resumed back down.
//
// Each runs offline on a scripted model from package chattest, replaying what a real model
// answers; each program's run function takes any chat.Model, so the same code runs against a
// real provider. Run one with:
//
//	go run ./examples/datetime
package examples
