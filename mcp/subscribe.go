package mcp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrUnsupported matches the error of a request the other side did not declare it supports: a
// subscription to a server without resources.subscribe, or a served tool asking a client that
// declared no elicitation or sampling.
var ErrUnsupported = errors.New("mcp: not supported by the other side")

// ErrSubscriptionEnded matches [Subscription.Err] when the server's connection ended: a stdio
// server exited, an HTTP server could not be reached again within about 15 seconds, or a server
// reached again refused the subscription.
var ErrSubscriptionEnded = errors.New("mcp: subscription ended with the server's connection")

// Subscription is a subscription to the updates of one resource ([Client.Subscribe]). It holds at
// most one update not yet received: an update stands for any that follow it until it is received,
// since an update only says the resource changed, so a server that sends a storm of them costs a
// slow reader nothing. Updates closes when the subscription ends, and Err then says why.
type Subscription struct {
	c       *Client
	uri     string
	session *sdk.ClientSession
	updates chan *sdk.ResourceUpdatedNotificationParams

	once sync.Once
	mu   sync.Mutex
	err  error // set before updates closes
}

// URI returns the subscribed resource's URI.
func (s *Subscription) URI() string { return s.uri }

// Updates delivers the resource's updates; it is closed when the subscription ends.
func (s *Subscription) Updates() <-chan *sdk.ResourceUpdatedNotificationParams { return s.updates }

// Err returns why the subscription ended, once Updates is closed: nil after Close, an error
// matching [ErrSubscriptionEnded] when the server's connection ended, [ErrClosed] when the client
// closed. Before the end it returns nil.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// end closes the subscription with err, once.
func (s *Subscription) end(err error) {
	s.once.Do(func() {
		s.mu.Lock()
		s.err = err
		s.mu.Unlock()
		close(s.updates)
	})
}

// Close ends the subscription and, when it was the last on its resource, unsubscribes on the
// server (best effort, within the server's timeout). It is safe to call more than once.
func (s *Subscription) Close() error {
	c := s.c
	c.mu.Lock()
	_, live := c.subs[s]
	delete(c.subs, s)
	session := s.session // moved by a resubscription, under c.mu
	last := live && !c.subscribed(session, s.uri)
	c.mu.Unlock()
	if !live {
		return nil
	}
	s.end(nil)
	if !last {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.unsubscribeTimeout())
	defer cancel()
	if err := session.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: s.uri}); err != nil && !errors.Is(err, sdk.ErrConnectionClosed) {
		return c.errorf("unsubscribing from %s: %w", quoteName(s.uri), err)
	}
	return nil
}

func (c *Client) unsubscribeTimeout() time.Duration {
	if d := c.cfg.timeout(); d > 0 {
		return d
	}
	return DefaultTimeout
}

// subscribed reports whether a live subscription on session s holds uri; under c.mu.
func (c *Client) subscribed(s *sdk.ClientSession, uri string) bool {
	for sub := range c.subs {
		if sub.session == s && sub.uri == uri {
			return true
		}
	}
	return false
}

// Subscribe asks the server for notifications/resources/updated about the resource at uri and
// returns the [Subscription] they arrive on. Several subscriptions to one resource share the
// server's; the last one closed unsubscribes. A server that did not declare resource
// subscriptions is an error matching [ErrUnsupported]. When the connection to an HTTP server ends,
// the client reconnects and subscribes again on the new session, and each subscription then gets
// an update, since the resource may have changed unseen; when that fails, or a stdio server's
// connection ends, every subscription on it ends ([ErrSubscriptionEnded]). [Client.Close] ends
// them with [ErrClosed].
func (c *Client) Subscribe(ctx context.Context, uri string) (*Subscription, error) {
	if uri == "" {
		return nil, c.errorf("subscribing: no URI")
	}
	parent := ctx
	if d := c.cfg.timeout(); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, d, errNoAnswer)
		defer cancel()
	}
	what := "subscribing to " + quoteName(uri)
	s, err := c.Session(ctx)
	if err != nil {
		return nil, c.failed(parent, ctx, what, err)
	}
	if ir := s.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Resources == nil || !ir.Capabilities.Resources.Subscribe {
		return nil, c.errorf("%s: %w: the server does not offer resource subscriptions", what, ErrUnsupported)
	}
	sub := &Subscription{c: c, uri: uri, session: s, updates: make(chan *sdk.ResourceUpdatedNotificationParams, 1)}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	first := !c.subscribed(s, uri)
	if c.subs == nil {
		c.subs = map[*Subscription]struct{}{}
	}
	// Registered before the request, so that an update sent as soon as it is taken arrives.
	c.subs[sub] = struct{}{}
	c.mu.Unlock()
	if !first {
		return sub, nil
	}
	if err := s.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		c.mu.Lock()
		delete(c.subs, sub)
		c.mu.Unlock()
		sub.end(err)
		return nil, c.failed(parent, ctx, what, c.errorf("%s: %w", what, err))
	}
	return sub, nil
}

// resourceUpdated hands an update to the subscriptions of its session and URI, never waiting.
func (c *Client) resourceUpdated(req *sdk.ResourceUpdatedNotificationRequest) {
	if req == nil || req.Params == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for sub := range c.subs {
		if sub.session != req.Session || sub.uri != req.Params.URI {
			continue
		}
		select {
		case sub.updates <- req.Params:
		default: // one is waiting already, and stands for this one
		}
	}
}

// endSubscriptions ends the subscriptions on session s (every one when s is nil) with err.
func (c *Client) endSubscriptions(s *sdk.ClientSession, err error) {
	c.mu.Lock()
	var ended []*Subscription
	for sub := range c.subs {
		if s == nil || sub.session == s {
			ended = append(ended, sub)
			delete(c.subs, sub)
		}
	}
	c.mu.Unlock()
	for _, sub := range ended {
		sub.end(err)
	}
}

// resubscribeWaits are the pauses before each attempt to reach an HTTP server again for its
// subscriptions: about 15 seconds in all, enough for a server's restart, short of holding a
// subscription open on a server that is gone.
var resubscribeWaits = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond,
	800 * time.Millisecond, 1600 * time.Millisecond, 3 * time.Second, 4 * time.Second, 5 * time.Second}

// resubscribe carries the subscriptions of the ended session old over to a new session: it
// reconnects, subscribes again to each resource, and hands each subscription an update. It
// reports whether it took charge of them (there were some, and the client is open); those it
// could not carry over it ends.
func (c *Client) resubscribe(old *sdk.ClientSession) bool {
	c.mu.Lock()
	n := 0
	for sub := range c.subs {
		if sub.session == old {
			n++
		}
	}
	closed := c.closed
	c.mu.Unlock()
	if n == 0 || closed {
		return false
	}
	var lastErr error
	for _, wait := range resubscribeWaits {
		time.Sleep(wait)
		c.mu.Lock()
		closed := c.closed
		c.mu.Unlock()
		if closed {
			return true // Close ended them
		}
		ctx, cancel := context.WithTimeout(context.Background(), c.unsubscribeTimeout())
		s, err := c.Session(ctx)
		if err != nil {
			cancel()
			lastErr = err
			continue
		}
		c.carryOver(ctx, old, s)
		cancel()
		return true
	}
	c.logger.Warn("mcp: could not reach the server again for its subscriptions", "server", c.cfg.Name, "error", lastErr)
	c.endSubscriptions(old, fmt.Errorf("%w: reconnecting: %w", ErrSubscriptionEnded, lastErr))
	return true
}

// carryOver moves the subscriptions on old to s, subscribing again on the server.
func (c *Client) carryOver(ctx context.Context, old, s *sdk.ClientSession) {
	if ir := s.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Resources == nil || !ir.Capabilities.Resources.Subscribe {
		c.endSubscriptions(old, fmt.Errorf("%w: the server reached again no longer offers subscriptions: %w", ErrSubscriptionEnded, ErrUnsupported))
		return
	}
	c.mu.Lock()
	uris := map[string][]*Subscription{}
	for sub := range c.subs {
		if sub.session == old {
			sub.session = s
			uris[sub.uri] = append(uris[sub.uri], sub)
		}
	}
	c.mu.Unlock()
	for uri, subs := range uris {
		err := s.Subscribe(ctx, &sdk.SubscribeParams{URI: uri})
		var failed []*Subscription
		c.mu.Lock()
		for _, sub := range subs {
			if _, live := c.subs[sub]; !live {
				continue // closed meanwhile; its channel may be closed
			}
			if err != nil {
				delete(c.subs, sub)
				failed = append(failed, sub)
				continue
			}
			select {
			case sub.updates <- &sdk.ResourceUpdatedNotificationParams{URI: uri}:
			default: // one is waiting already
			}
		}
		c.mu.Unlock()
		for _, sub := range failed {
			sub.end(fmt.Errorf("%w: subscribing again: %w", ErrSubscriptionEnded, err))
		}
	}
}
