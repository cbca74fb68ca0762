package temporal

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"
	sdktemporal "go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

// DefaultName is the name of an agent whose [Config] names none.
const DefaultName = "wield"

// Defaults of [Config].
const (
	DefaultModelTimeout     = 5 * time.Minute
	DefaultToolTimeout      = 10 * time.Minute
	DefaultHeartbeatTimeout = 30 * time.Second
	DefaultEventPoll        = 200 * time.Millisecond
	// DefaultStreamInterval is how often a streamed model call's text reaches the server.
	DefaultStreamInterval = 250 * time.Millisecond
	// DefaultMaxToolResultBytes is Temporal's own warning threshold for a payload; its default
	// limit, which fails the call, is 2 MB.
	DefaultMaxToolResultBytes = 512 << 10
	// DefaultMaxPayloadBytes is Temporal's default payload limit (2 MiB) less 128 KiB: two
	// payloads of it, which one workflow task may carry, leave 256 KiB of gRPC's 4 MiB for what
	// travels beside them (a query's answer). It is also the largest bound a config may set.
	DefaultMaxPayloadBytes = 2<<20 - 128<<10
	// DefaultMaxHistoryEvents and DefaultMaxHistoryBytes are Temporal's warning thresholds.
	DefaultMaxHistoryEvents = 10240
	DefaultMaxHistoryBytes  = 10 << 20
)

// Config describes one agent on Temporal: where its turns, model calls and tool calls run and
// how long each may take. The workers and the clients of an agent share it (a client reads
// Name, TaskQueue and EventPoll only).
type Config struct {
	// Name identifies the agent, so that several agents can share a task queue: its workflow
	// type is Name+".Turn" and its activities' names start with Name+"."; empty means
	// [DefaultName].
	Name string
	// TaskQueue is the queue of the agent's turns (workflows), model calls and memory
	// activities. Required.
	TaskQueue string
	// ToolTaskQueue is the queue of its tool calls, served by [NewToolWorker] on the machines
	// that run the tools; empty means TaskQueue, where [NewWorker] runs them.
	ToolTaskQueue string

	// WorkflowLoop starts the turns this worker starts on the workflow's own loop of earlier
	// releases, which runs no advisor or hook, instead of the client's own loop: the client's
	// advisor chain (memory, tool search, a user's advisors), loop hooks and tool-call manager
	// run in the workflow, as in a process, and only model calls, tool calls and advisors' I/O
	// leave it, as activities (package engine says the rule such code follows). A turn keeps the
	// loop it started with, so turns started either way replay as they ran. On the client's
	// loop, the client's loop settings (its MaxIterations) apply and MaxIterations here does
	// not.
	//
	// Deprecated: for a deploy during which workers of a release before the client's loop must
	// still take new turns; the workflow's own loop stays only to replay the turns it started.
	WorkflowLoop bool

	// ClientLoop asked for the client's own loop, which is now the default.
	//
	// Deprecated: it has no effect; see WorkflowLoop.
	ClientLoop bool

	// MaxHistoryEvents and MaxHistoryBytes bound the history of one run of a client-loop turn's
	// workflow: past either, or when Temporal suggests it, the turn continues as new between two
	// rounds, carrying its state, events and what it added into a fresh history, so that no
	// turn is ended by Temporal's history limits (51,200 events, 50 MiB). Zero means
	// DefaultMaxHistoryEvents and DefaultMaxHistoryBytes. A turn keeps the bounds of the worker
	// that started it.
	MaxHistoryEvents int
	MaxHistoryBytes  int

	// MaxIterations caps the tool rounds of a turn on the workflow's own loop (WorkflowLoop), as
	// [client.ToolLoopConfig] does: when it is reached the last model call is made with tool use
	// turned off. Zero means [client.DefaultMaxIterations]. On the client's loop, the default,
	// the client's own cap applies.
	MaxIterations int
	// ModelTimeout bounds one attempt of a model call; zero means [DefaultModelTimeout].
	ModelTimeout time.Duration
	// ModelRetry is the retry policy of model calls and memory activities; nil means retries with
	// backoff, at most 5 attempts. Provider errors that are not temporary (a bad request, a
	// refused key) are never retried.
	ModelRetry *sdktemporal.RetryPolicy
	// ToolTimeout bounds one attempt of a tool call whose tool sets no timeout of its own; a
	// tool's [tool.Metadata] Timeout, when set, applies as in any turn (the call fails for the
	// model) and the attempt gets a minute more. Zero means [DefaultToolTimeout].
	ToolTimeout time.Duration
	// HeartbeatTimeout is how long a model or tool call may go without a heartbeat before its
	// worker counts as lost; calls heartbeat three times as often, with the tool's last progress
	// report. Zero means [DefaultHeartbeatTimeout].
	HeartbeatTimeout time.Duration
	// ToolRetry is the retry policy of the calls of idempotent tools ([tool.Metadata] ReadOnly
	// or Idempotent); nil means retries with backoff, at most 3 attempts. The calls of other
	// tools run at most once: one whose attempt was lost (its worker died, it timed out) stops
	// the turn for the application's decision, as [client.CallRunning] does.
	ToolRetry *sdktemporal.RetryPolicy
	// MaxToolResultBytes caps a tool call's result, and what a tool stops the turn with (its
	// interrupt's data, a sub-agent's state), measured as JSON: every one travels in the turn's
	// history, and one over Temporal's payload limit would be lost after the tool ran, leaving
	// the call to a decision. A larger one reaches the model as an error result saying so, and
	// an application's decision giving a larger result (an answer, a rejection's message),
	// larger edited arguments or larger data for a restarted call is refused. Zero means [DefaultMaxToolResultBytes]; a negative value means no cap (the
	// server's limit still applies).
	MaxToolResultBytes int
	// MaxPayloadBytes bounds, measured as JSON, what a turn puts into one of Temporal's
	// payloads, whose limit fails the workflow task on every attempt and so would leave the turn
	// stuck: the model's input (the conversation, with the turn's request), the model's
	// response, a loaded conversation, and the turn's response. A tool round whose results
	// together would take the next model input over it has its largest results replaced by
	// error results saying they were too large, as few as bring it under, and goes on; anything
	// else over it ends the turn with an error matching [ErrPayloadTooLarge], and a model
	// response over it is not retried (another attempt costs as much and most likely answers
	// alike). So does a model response whose tool calls' arguments could not fit the model's
	// next input whatever their results, before any call runs. It also bounds a call's input (a
	// call over it fails for the model without running), the inputs of the calls that run at
	// once (more wait for earlier ones to finish: one workflow task's commands must stay under
	// gRPC's 4 MiB), and, at half of it, the decisions of one update. Set it lower when the
	// server's limit (limit.blobSize.error) is. A value over the default is refused, even for a
	// server whose payload limit is larger: a workflow task may carry two payloads of the bound,
	// and its completion, one gRPC message, terminates the turn over 4 MiB, a limit the server
	// does not raise; with a [BlobConverter] as DataConverter, whose payloads over its threshold
	// are references in the history, up to [MaxExternalPayloadBytes] is allowed. Zero means
	// [DefaultMaxPayloadBytes]; a negative value means no bound. A turn keeps the bound of the
	// worker that started it.
	MaxPayloadBytes int

	// Memory, if set, keeps the conversations of turns that name one: the turn's new messages
	// are added and the conversation loaded at its start, each tool round is added when it
	// completes, and the answer at the end, each by an activity. Use a [memory.Window] over a
	// repository all workers reach (memory/sqlstore on PostgreSQL). Read by workers.
	Memory memory.Memory

	// Worker configures the Temporal workers made with this config (concurrency, rate limits).
	Worker worker.Options

	// DataConverter is the data converter of the Temporal client the workers and clients use
	// (sdkclient.Options.DataConverter), with its codecs (encryption, compression): wield
	// decodes what it reads outside the SDK's calls with it (a running tool's progress, a
	// waiting turn's memo), and replayers replay with it. nil means the SDK's default.
	DataConverter converter.DataConverter

	// EventPoll is how often [Turn.Events] and [Turn.WaitPending] ask the workflow for news;
	// zero means [DefaultEventPoll].
	EventPoll time.Duration

	// StreamInterval is how often a model call streams its text so far to the server, as its
	// activity's heartbeat details, for [Turn.Events] to show while the call runs: the SDK sends
	// a heartbeat's details at most this often (it sets Worker.MaxHeartbeatThrottleInterval
	// when that is zero), one RPC each. Zero means [DefaultStreamInterval]; a negative value
	// calls the model without streaming, and Turn.Events shows each answer whole.
	StreamInterval time.Duration

	engine int // the newest engine the worker knows, when a test plays another build; 0 is this build's
}

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	if c.TaskQueue == "" {
		return c, errors.New("temporal: the config names no task queue")
	}
	c.Name = cmp.Or(c.Name, DefaultName)
	c.ToolTaskQueue = cmp.Or(c.ToolTaskQueue, c.TaskQueue)
	c.MaxIterations = positiveOr(c.MaxIterations, client.DefaultMaxIterations)
	c.ModelTimeout = positiveOr(c.ModelTimeout, DefaultModelTimeout)
	c.ToolTimeout = positiveOr(c.ToolTimeout, DefaultToolTimeout)
	c.HeartbeatTimeout = positiveOr(c.HeartbeatTimeout, DefaultHeartbeatTimeout)
	if c.ModelRetry == nil {
		c.ModelRetry = &sdktemporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 5}
	}
	if c.ToolRetry == nil {
		c.ToolRetry = &sdktemporal.RetryPolicy{InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3}
	}
	// Negative bounds mean none, a negative interval no streaming: only zero takes the default.
	c.MaxToolResultBytes = cmp.Or(c.MaxToolResultBytes, DefaultMaxToolResultBytes)
	c.MaxPayloadBytes = cmp.Or(c.MaxPayloadBytes, DefaultMaxPayloadBytes)
	c.StreamInterval = cmp.Or(c.StreamInterval, DefaultStreamInterval)
	if c.DataConverter == nil {
		c.DataConverter = converter.GetDefaultDataConverter()
	}
	if c.StreamInterval > 0 && c.Worker.MaxHeartbeatThrottleInterval == 0 {
		c.Worker.MaxHeartbeatThrottleInterval = c.StreamInterval
	}
	if _, external := c.DataConverter.(*BlobConverter); external {
		// The history holds references: a value may be as large as a blob store keeps.
		if c.MaxPayloadBytes > MaxExternalPayloadBytes {
			return c, fmt.Errorf("temporal: MaxPayloadBytes %d is over %d (MaxExternalPayloadBytes)", c.MaxPayloadBytes, MaxExternalPayloadBytes)
		}
	} else if c.MaxPayloadBytes > DefaultMaxPayloadBytes {
		return c, fmt.Errorf("temporal: MaxPayloadBytes %d is over %d (DefaultMaxPayloadBytes), the most a turn can keep: one workflow task may carry two payloads of the bound, and the server takes at most 4 MiB in one gRPC message whatever its payload limit",
			c.MaxPayloadBytes, DefaultMaxPayloadBytes)
	}
	c.EventPoll = positiveOr(c.EventPoll, DefaultEventPoll)
	c.MaxHistoryEvents = positiveOr(c.MaxHistoryEvents, DefaultMaxHistoryEvents)
	c.MaxHistoryBytes = positiveOr(c.MaxHistoryBytes, DefaultMaxHistoryBytes)
	return c, nil
}

// positiveOr returns v, or def when v is not positive (unset).
func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// The names of an agent's workflow, activities, query and update.
func (c Config) workflowName() string { return c.Name + ".Turn" }
func (c Config) activity(n string) string {
	return c.Name + "." + n
}

const (
	actModel    = "Model"
	actTool     = "Tool"
	actPlan     = "Plan"
	actDecide   = "Decide"
	actAssemble = "Assemble"
	actLoad     = "LoadMemory"
	actRemember = "Remember"
	// The activities of a turn that runs the client's loop (engineLoop).
	actInvokeModel = "InvokeModel"
	actInvokeTool  = "InvokeTool"

	queryPending = "wield.pending"
	queryEvents  = "wield.events"
	queryPart    = "wield.part"
	updateDecide = "wield.decide"

	// What the part query reads.
	partPending = "pending"
	partEvent   = "event"

	// answerVersion is the version of the events query's answer a client reads: 1 reads the
	// pending state and large events in parts (the part query).
	answerVersion = 1
)

// Error types of the application errors the agent's workflow and activities fail with; [Turn]
// maps them back to wield's errors.
const (
	errTypeInvalidDecision = "wield.InvalidDecision"
	errTypeNotWaiting      = "wield.NotWaiting"
	errTypeBusy            = "wield.Busy"
	errTypeLimit           = "wield.LimitExceeded"
	errTypeTurnEnded       = "wield.TurnEnded"
	errTypeProvider        = "wield.ProviderError"
	errTypeConfig          = "wield.Config"
	errTypePayload         = "wield.PayloadTooLarge"
	errTypeTreeBudget      = "wield.TreeBudget"
)

// ErrPayloadTooLarge is matched by the error of a turn that ended because something it had to
// put into one of Temporal's payloads was over the turn's bound ([Config.MaxPayloadBytes]).
var ErrPayloadTooLarge = errors.New("temporal: over the turn's payload bound")
