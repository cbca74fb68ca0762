// Package memory keeps conversations between calls.
//
// A [Repository] stores every message of a conversation ([InMemory] here; SQL ones elsewhere).
// A [Memory] is what the application and the memory advisor use: [Window] stores through a
// repository and hands the model the most recent messages, cut by [Trim] so that a tool call is
// never separated from its results; it reads only the end of the conversation
// ([Repository.Last]) and may cap the size of the messages it stores ([MaxMessageBytes]; media
// parts count, base64-encoded, so the cap bounds what one image or document adds; a tool result
// over it is kept as an error result that says so, since its call has run). Every
// repository accepts the same conversation ids ([ValidateConversationID]). [Advisor] plugs a
// Memory into a client's advisor chain, outside the tool loop by default (the user's message
// and the final answer are stored) or inside it (every message, tool calls and results
// included).
//
// Repositories that are also a [TurnRepository] ([InMemory], and the SQL ones) keep each
// conversation's open turn: the state of a turn that stopped for approval or an interrupt, or
// whose process failed after a tool round. [Turns] makes the client's turn store of one, so that
// such a turn is resumed in any process sharing the repository, and no call runs twice:
//
//	c, err := client.New(model,
//		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 20), memory.AdvisorConfig{})),
//		client.WithTurnStore(memory.Turns(repo)))
package memory
