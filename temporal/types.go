package temporal

import (
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// Request is what a turn is started with ([Client.Start]): everything in it travels as JSON
// through Temporal, so the tools are the worker's client's and only named here.
type Request struct {
	// ID is the turn's workflow id; empty means a new random one. Starting a turn with the id of
	// one still running fails.
	ID string `json:"id,omitempty"`
	// ConversationID names the conversation; with [Config.Memory] the turn continues it.
	ConversationID string `json:"conversationId,omitempty"`
	// Messages are the turn's new messages, usually one user message.
	Messages []chat.Message `json:"messages"`
	// System, when set, replaces the client's system message ("" removes it).
	System *string `json:"system,omitempty"`
	// Options are merged over the client's default options; their Tools must be empty (the
	// tools are the worker's: name more with ToolNames).
	Options *chat.Options `json:"options,omitempty"`
	// ToolNames are resolved by the worker's client's manager and offered besides its tools.
	ToolNames []string `json:"toolNames,omitempty"`
	// ToolContext reaches the tools ([tool.ContextFrom]) and never the model. It travels as
	// JSON: numbers arrive as float64, structs as maps.
	ToolContext tool.Context `json:"toolContext,omitempty"`
	// Tree starts the turn's agent tree from an account ([client.WithTreeAccount]): the share of
	// a caller's tree the turn may spend, say. It can lower the worker client's budget
	// ([client.WithTreeBudget]), never raise it.
	Tree *client.TreeAccount `json:"tree,omitempty"`
	// Continued is set by the workflow when a turn continues as new ([Config.MaxHistoryEvents]):
	// what the turn carries into its next run. Leave it nil.
	Continued *Continuation `json:"continued,omitempty"`
	// Agent is set by the workflow on the turn of a sub-agent ([client.AgentTool]) it runs as a
	// child workflow. Leave it nil.
	Agent *AgentTurn `json:"agent,omitempty"`
}

// AgentTurn is a sub-agent's turn run as a child workflow: the path of agent names from the
// worker's client to the sub-agent's ([client.Client.Agent]), and its call.
type AgentTurn struct {
	Path []string         `json:"path"`
	Call client.AgentCall `json:"call"`
}

// Continuation is what a turn that runs the client's loop carries into the next run of its
// workflow when its history grew too long: the state that continues it from its next model
// call, and what its earlier runs made (their events, the messages they added, their usage).
type Continuation struct {
	State      *client.TurnState `json:"state"`
	Events     []client.Event    `json:"events,omitempty"`
	Messages   []chat.Message    `json:"messages,omitempty"`
	Usage      chat.Usage        `json:"usage"`
	ModelCalls int               `json:"modelCalls,omitempty"`
	Runs       int               `json:"runs"`
}

// modelInput is the input of a model call.
type modelInput struct {
	Turn     *Request       `json:"turn"`
	Messages []chat.Message `json:"messages"`
	Final    bool           `json:"final,omitempty"`    // tool use turned off: the iteration cap is reached
	MaxBytes int            `json:"maxBytes,omitempty"` // bounds the response; 0: none
}

// toolInput is the input of one tool call.
type toolInput struct {
	Turn   *Request             `json:"turn"`
	Call   chat.ToolCall        `json:"call"`
	Resume *toolcall.Resumption `json:"resume,omitempty"`
}

// toolOutput is a tool call's outcome: its result, or where it stopped.
type toolOutput struct {
	Result  chat.ToolResult     `json:"result"`
	Elapsed time.Duration       `json:"elapsed"`
	Stopped *client.PendingCall `json:"stopped,omitempty"` // the tool interrupted the turn
}

// callInfo is what the workflow needs to know of a call's tool to schedule it.
type callInfo struct {
	Known   bool          `json:"known,omitempty"`   // the turn offers the tool
	Alone   bool          `json:"alone,omitempty"`   // sequential: never beside another call
	Retry   bool          `json:"retry,omitempty"`   // idempotent: retried when an attempt is lost
	Timeout time.Duration `json:"timeout,omitempty"` // the tool's own timeout
}

// planInput asks how a new round's calls go: approval, limits, which run.
type planInput struct {
	Turn       *Request       `json:"turn"`
	Messages   []chat.Message `json:"messages"`
	Response   *chat.Response `json:"response"`
	CallCounts map[string]int `json:"callCounts,omitempty"`
	TotalCalls int            `json:"totalCalls,omitempty"`
	// Lean leaves the calls' arguments out of the output, whose marker would otherwise hold
	// them twice (in the round's message and in its calls): the workflow has them in Response.
	Lean bool `json:"lean,omitempty"`
}

// planOutput says where each call of a new round stands before any runs: done (a limit
// refused it), waiting for approval (then none runs), or waiting to run.
type planOutput struct {
	Stopped    bool           `json:"stopped,omitempty"`
	Round      *client.Round  `json:"round"`
	Info       []callInfo     `json:"info"`
	CallCounts map[string]int `json:"callCounts,omitempty"`
	TotalCalls int            `json:"totalCalls,omitempty"`
}

// decideInput asks for the plans of a stopped round from the application's decisions.
type decideInput struct {
	Turn      *Request          `json:"turn"`
	State     *client.TurnState `json:"state"`
	Decisions []client.Decision `json:"decisions"`
	// Lean leaves out of the plans what the round holds (results, interrupts, sub-agents'
	// states), whose marker would otherwise hold them again: Kept says what, and the workflow
	// restores it from the round.
	Lean bool `json:"lean,omitempty"`
}

// decideOutput holds a stopped round's plans, one per call.
type decideOutput struct {
	Plans []toolcall.Plan `json:"plans"`
	Info  []callInfo      `json:"info"`
	Kept  []kept          `json:"kept,omitempty"` // one per plan in a lean output
}

// kept says what a lean decideOutput left out of a call's plan, to be taken from the call in
// the round.
type kept struct {
	Result    bool `json:"result,omitempty"`    // Result is the call's
	Interrupt bool `json:"interrupt,omitempty"` // Resume.Interrupt is the call's
	// Child is the member of Resume.Data, a JSON object, that is the call's sub-agent state.
	Child string `json:"child,omitempty"`
}

// decideRequest is the argument of the decide update.
type decideRequest struct {
	Seq       int64             `json:"seq,omitempty"`
	Decisions []client.Decision `json:"decisions"`
	// Tree is the share of its caller's tree the resumed run spends, counted from nothing, when
	// the caller gives one with its decisions (a served task's next message); without it the
	// run counts as before.
	Tree *client.TreeAccount `json:"tree,omitempty"`
}

// assembleInput asks for a finished round's messages: every call has its result in Plans.
type assembleInput struct {
	Turn     *Request        `json:"turn"`
	Response *chat.Response  `json:"response"`
	Plans    []toolcall.Plan `json:"plans"`
	// MaxBytes bounds the round's two messages together: the largest results are dropped until
	// they fit. 0: no bound.
	MaxBytes int `json:"maxBytes,omitempty"`
}

// assembleOutput is a finished round: the assistant message with the calls as they ran and the
// tool message with their results, and whether the results are the answer.
type assembleOutput struct {
	Messages     []chat.Message `json:"messages"`
	ReturnDirect bool           `json:"returnDirect,omitempty"`
}

// memoryInput adds messages to a conversation (and, to load it, gets it).
type memoryInput struct {
	ConversationID string         `json:"conversationId"`
	Messages       []chat.Message `json:"messages,omitempty"`
	MaxBytes       int            `json:"maxBytes,omitempty"` // bounds the conversation loaded; 0: none
}

// eventsPage is the answer of the events query: the events after those asked for (as many as
// a page takes), the count of events it reaches, whether more follow, what the turn waits for,
// and whether it ended.
type eventsPage struct {
	Events   []client.Event    `json:"events"`
	Next     int               `json:"next"`
	More     bool              `json:"more,omitempty"` // events after Next wait for the next page
	Pending  *client.TurnState `json:"pending,omitempty"`
	Finished bool              `json:"finished,omitempty"`
	// Waiting is the Seq of the pending state, when the turn waits but the page leaves the
	// state out for its size: the part query reads it.
	Waiting int64 `json:"waiting,omitempty"`
	// Large says that the event at Next is over what a page takes alone: the part query reads
	// it.
	Large bool `json:"large,omitempty"`
	// Modeling says that a model call runs, whose text so far its heartbeats may carry.
	Modeling bool `json:"modeling,omitempty"`
	// Calling says that tool calls run, whose agents' events their heartbeats may carry.
	Calling bool `json:"calling,omitempty"`
	// Agents are the latest sub-agents' turns the turn started as child workflows, whose events
	// a reader reads from them; AgentsFrom is the index of Agents[0] among all it started.
	Agents     []agentRef `json:"agents,omitempty"`
	AgentsFrom int        `json:"agentsFrom,omitempty"`
}

// agentRef is a sub-agent's turn in a child workflow: its workflow id and agent name.
type agentRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// partAnswer is the answer of the part query: a part of a value's JSON encoding, from the
// offset asked for, and the encoding's length. Found is false when the value is gone.
type partAnswer struct {
	Found bool   `json:"found,omitempty"`
	Total int    `json:"total"`
	Data  []byte `json:"data"`
}
