package temporal

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/wield-ai/wield/client"
)

// Worker runs an agent's work from a task queue: turns and model calls ([NewWorker]), or tool
// calls ([NewToolWorker]). Start as many as the load needs, on as many machines: Temporal
// spreads the work over them.
type Worker struct {
	w worker.Worker
}

// NewWorker returns a worker of the agent cfg describes that runs its turns with c: the
// workflows, the model calls and the memory activities, from cfg.TaskQueue, and the tool calls
// too unless cfg.ToolTaskQueue names another queue. c's model, tools (offered to the model and
// read for approval and scheduling even when they run elsewhere), system message, default
// options, approval policy and manager (limits, error processing) make the turn.
func NewWorker(tc sdkclient.Client, c *client.Client, cfg Config) (*Worker, error) {
	cfg, err := check(tc, c, cfg)
	if err != nil {
		return nil, err
	}
	w := worker.New(tc, cfg.TaskQueue, cfg.Worker)
	register(w, c, cfg, true, cfg.ToolTaskQueue == cfg.TaskQueue)
	return &Worker{w: w}, nil
}

// NewToolWorker returns a worker of the agent cfg describes that runs its tool calls with c's
// tools and manager, from cfg.ToolTaskQueue, which must differ from cfg.TaskQueue (a worker
// made by [NewWorker] runs the tools of an agent with one queue).
func NewToolWorker(tc sdkclient.Client, c *client.Client, cfg Config) (*Worker, error) {
	cfg, err := check(tc, c, cfg)
	if err != nil {
		return nil, err
	}
	if cfg.ToolTaskQueue == cfg.TaskQueue {
		return nil, errors.New("temporal: a tool worker needs a ToolTaskQueue of its own; NewWorker runs the tools of an agent with one queue")
	}
	w := worker.New(tc, cfg.ToolTaskQueue, cfg.Worker)
	register(w, c, cfg, false, true)
	return &Worker{w: w}, nil
}

func check(tc sdkclient.Client, c *client.Client, cfg Config) (Config, error) {
	if tc == nil {
		return cfg, errors.New("temporal: nil Temporal client")
	}
	if c == nil {
		return cfg, errors.New("temporal: nil wield client")
	}
	return cfg.withDefaults()
}

// registry is where an agent's workflow and activities are registered.
type registry interface {
	RegisterWorkflowWithOptions(w any, options workflow.RegisterOptions)
	RegisterActivityWithOptions(a any, options activity.RegisterOptions)
}

// register puts the agent's turn work (the workflow, model and memory activities and the
// decisions) and its tool calls on r.
func register(r registry, c *client.Client, cfg Config, turns, tools bool) {
	a := newActivities(c, cfg)
	if turns {
		r.RegisterWorkflowWithOptions((&turnWorkflow{cfg: cfg, c: c}).run, workflow.RegisterOptions{Name: cfg.workflowName()})
		r.RegisterActivityWithOptions(a.Model, activity.RegisterOptions{Name: cfg.activity(actModel)})
		r.RegisterActivityWithOptions(a.InvokeModel, activity.RegisterOptions{Name: cfg.activity(actInvokeModel)})
		r.RegisterActivityWithOptions(a.Plan, activity.RegisterOptions{Name: cfg.activity(actPlan)})
		r.RegisterActivityWithOptions(a.Decide, activity.RegisterOptions{Name: cfg.activity(actDecide)})
		r.RegisterActivityWithOptions(a.Assemble, activity.RegisterOptions{Name: cfg.activity(actAssemble)})
		if cfg.Memory != nil {
			r.RegisterActivityWithOptions(a.LoadMemory, activity.RegisterOptions{Name: cfg.activity(actLoad)})
			r.RegisterActivityWithOptions(a.Remember, activity.RegisterOptions{Name: cfg.activity(actRemember)})
		}
	}
	if tools {
		r.RegisterActivityWithOptions(a.Tool, activity.RegisterOptions{Name: cfg.activity(actTool)})
		r.RegisterActivityWithOptions(a.InvokeTool, activity.RegisterOptions{Name: cfg.activity(actInvokeTool)})
	}
}

// Start starts the worker; it polls until [Worker.Stop].
func (w *Worker) Start() error { return w.w.Start() }

// Run runs the worker until interrupt delivers a value (use [worker.InterruptCh] for the
// process's signals).
func (w *Worker) Run(interrupt <-chan any) error { return w.w.Run(interrupt) }

// Stop stops the worker, letting the activities it runs finish within the worker options'
// stop timeout.
func (w *Worker) Stop() { w.w.Stop() }

// NewReplayer returns a workflow replayer with the workflow of the agent cfg describes, for the
// turns of the workflow's own loop (those started before the client's loop or with
// [Config.WorkflowLoop]); [NewClientReplayer] replays every turn.
func NewReplayer(cfg Config) (worker.WorkflowReplayer, error) { return newReplayer(nil, cfg) }

// NewClientReplayer returns a workflow replayer with the workflow of the agent cfg describes, to
// check that a new build still replays the histories of turns the old one recorded (download
// them with the Temporal CLI, or [sdkclient.Client.GetWorkflowHistory]) before deploying it.
// Replaying a turn runs c's advisors, hooks and manager, as the workflow does, so the replayer
// needs the client the workers run.
func NewClientReplayer(c *client.Client, cfg Config) (worker.WorkflowReplayer, error) {
	if c == nil {
		return nil, errors.New("temporal: nil wield client")
	}
	return newReplayer(c, cfg)
}

// newReplayer returns the replayer of the agent's workflow, run with c (nil for the workflow's
// own loop only).
func newReplayer(c *client.Client, cfg Config) (worker.WorkflowReplayer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	r, err := worker.NewWorkflowReplayerWithOptions(cfg.replayerOptions())
	if err != nil {
		return nil, fmt.Errorf("temporal: %w", err)
	}
	r.RegisterWorkflowWithOptions((&turnWorkflow{cfg: cfg, c: c}).run, workflow.RegisterOptions{Name: cfg.workflowName()})
	return r, nil
}

// replayerOptions are the options of a replayer of cfg's turns: its codecs, and no deadlock
// detector when cfg's workers raise the detector's timeout, which a replayer cannot (it has the
// SDK's 1 s or none), so that a replay on a loaded machine fails only where the workers would.
func (c Config) replayerOptions() worker.WorkflowReplayerOptions {
	return worker.WorkflowReplayerOptions{DataConverter: c.DataConverter, DisableDeadlockDetection: c.Worker.DeadlockDetectionTimeout > time.Second}
}
