package a2a

import (
	"context"
	"fmt"
	"net/url"
	"time"

	sdk "github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2asrv"
	"github.com/a2aproject/a2a-go/a2asrv/push"
)

// PushConfig turns on A2A push notifications: the server POSTs a task to the URLs its caller
// gave, as it changes, with the SDK's sender. The configurations are kept in this process.
type PushConfig struct {
	// Allow decides whether the server may post to a URL a caller gave; an error refuses the
	// configuration. Required: the URLs come from callers, and the server's network may reach
	// what theirs does not.
	Allow func(*url.URL) error
	// Timeout bounds one notification; 10 seconds when zero.
	Timeout time.Duration
}

// pushOption returns the handler option enabling push notifications, or nil.
func (s *Server) pushOption() (a2asrv.RequestHandlerOption, error) {
	p := s.cfg.Push
	if p == nil {
		return nil, nil
	}
	if p.Allow == nil {
		return nil, fmt.Errorf("a2a: PushConfig.Allow is required")
	}
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	store := &allowedPush{PushConfigStore: push.NewInMemoryStore(), allow: p.Allow}
	return a2asrv.WithPushNotifications(store, push.NewHTTPPushSender(&push.HTTPSenderConfig{Timeout: timeout})), nil
}

// allowedPush refuses push configurations whose URL the server may not post to.
type allowedPush struct {
	a2asrv.PushConfigStore
	allow func(*url.URL) error
}

func (a *allowedPush) Save(ctx context.Context, id sdk.TaskID, c *sdk.PushConfig) (*sdk.PushConfig, error) {
	if c == nil {
		return nil, sdk.ErrInvalidParams
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the push URL is not an http(s) URL: %w", sdk.ErrInvalidParams)
	}
	if err := a.allow(u); err != nil {
		return nil, fmt.Errorf("the push URL is not allowed: %w", sdk.ErrInvalidParams)
	}
	return a.PushConfigStore.Save(ctx, id, c)
}

func (g *guarded) OnGetTaskPushConfig(ctx context.Context, p *sdk.GetTaskPushConfigParams) (*sdk.TaskPushConfig, error) {
	return owned(g, ctx, p, func(p *sdk.GetTaskPushConfigParams) sdk.TaskID { return p.TaskID }, g.RequestHandler.OnGetTaskPushConfig)
}

func (g *guarded) OnListTaskPushConfig(ctx context.Context, p *sdk.ListTaskPushConfigParams) ([]*sdk.TaskPushConfig, error) {
	return owned(g, ctx, p, func(p *sdk.ListTaskPushConfigParams) sdk.TaskID { return p.TaskID }, g.RequestHandler.OnListTaskPushConfig)
}

func (g *guarded) OnSetTaskPushConfig(ctx context.Context, p *sdk.TaskPushConfig) (*sdk.TaskPushConfig, error) {
	return owned(g, ctx, p, func(p *sdk.TaskPushConfig) sdk.TaskID { return p.TaskID }, g.RequestHandler.OnSetTaskPushConfig)
}

func (g *guarded) OnDeleteTaskPushConfig(ctx context.Context, p *sdk.DeleteTaskPushConfigParams) error {
	// Not owned: the handler returns no value, and a wrapper to give it one reads worse than this.
	if p == nil {
		return sdk.ErrInvalidParams
	}
	if err := g.own(ctx, p.TaskID); err != nil {
		return err
	}
	return g.RequestHandler.OnDeleteTaskPushConfig(ctx, p)
}
