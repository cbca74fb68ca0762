// Package memory keeps conversations between calls.
//
// A [Repository] stores every message of a conversation ([InMemory] here; SQL ones elsewhere).
// A [Memory] is what the application and the memory advisor use: [Window] stores through a
// repository and hands the model the most recent messages, cut by [Trim] so that a tool call is
// never separated from its results; it reads only the end of the conversation
// ([Repository.Last]) and may cap the size of the messages it stores ([MaxMessageBytes]). Every
// repository accepts the same conversation ids ([ValidateConversationID]). [Advisor] plugs a
// Memory into a client's advisor chain, outside the tool loop by default (the user's message
// and the final answer are stored) or inside it (every message, tool calls and results
// included).
package memory
