package httpguard

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ConnLimits cap the connections a server holds open at once.
type ConnLimits struct {
	// Total caps all connections; PerClient those from one remote IP address. Negative means no
	// cap of that kind; zero takes the default's.
	Total, PerClient int
}

// DefaultConnLimits is what [Serve] applies without ConnLimits: enough for every ordinary client
// (a browser opens six connections to a host), not enough for one to exhaust the server's sockets.
var DefaultConnLimits = ConnLimits{Total: 1024, PerClient: 64}

// RetryAfter is the Retry-After, in seconds, of a refusal for a limit.
const RetryAfter = 5

// LimitConns wraps ln so that a connection over limits is answered at once with 503 and
// Retry-After, and closed, rather than left waiting or allowed to hold a socket.
func LimitConns(ln net.Listener, limits ConnLimits) net.Listener {
	if limits.Total == 0 {
		limits.Total = DefaultConnLimits.Total
	}
	if limits.PerClient == 0 {
		limits.PerClient = DefaultConnLimits.PerClient
	}
	if limits.Total < 0 && limits.PerClient < 0 {
		return ln
	}
	return &limitListener{Listener: ln, lim: NewLimiter(limits.Total, limits.PerClient)}
}

type limitListener struct {
	net.Listener
	lim *Limiter
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		release, status := l.lim.Acquire(addrClient(hostOf(c.RemoteAddr().String())))
		if status == 0 {
			return &limitConn{Conn: c, release: sync.OnceFunc(release)}, nil
		}
		go refuseConn(c, status)
	}
}

// refuseConn answers a connection over the limits with a whole HTTP response and closes it; a
// client that does not read it does not hold anything for long.
func refuseConn(c net.Conn, status int) {
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	msg := "too many connections\n"
	_, _ = c.Write([]byte("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\n" +
		"Retry-After: " + strconv.Itoa(RetryAfter) + "\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Content-Length: " + strconv.Itoa(len(msg)) + "\r\nConnection: close\r\n\r\n" + msg))
	c.Close()
}

type limitConn struct {
	net.Conn
	release func()
}

func (c *limitConn) Close() error {
	c.release()
	return c.Conn.Close()
}

// Limiter counts holders of something scarce (sessions, runs, connections), in all and per
// client, within a total and a per-client cap (negative: no cap of that kind).
type Limiter struct {
	total, perClient int
	mu               sync.Mutex
	held             int
	per              map[string]int
}

// NewLimiter returns a limiter of total places, perClient of them for one client.
func NewLimiter(total, perClient int) *Limiter {
	return &Limiter{total: total, perClient: perClient, per: map[string]int{}}
}

// Acquire takes a place for client ("" is no client in particular: only the total applies). It returns status 0 and the function giving the place back
// (call it once), or the status of the refusal: 429 Too Many Requests when the client holds its
// share, 503 Service Unavailable when all places are held.
func (l *Limiter) Acquire(client string) (release func(), status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if client != "" && l.perClient >= 0 && l.per[client] >= l.perClient {
		return nil, http.StatusTooManyRequests
	}
	if l.total >= 0 && l.held >= l.total {
		return nil, http.StatusServiceUnavailable
	}
	l.held++
	l.per[client]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.held--
		if l.per[client]--; l.per[client] <= 0 {
			delete(l.per, client)
		}
	}, 0
}

// Held returns the places held, in all and by client.
func (l *Limiter) Held(client string) (total, byClient int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held, l.per[client]
}

// Refuse answers a request refused by a [Limiter] with status, Retry-After and msg.
func Refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfter))
	http.Error(w, msg, status)
}

// ClientID names the client of r for limits: its authenticated principal when there is one, else
// its remote IP address (not the port, which changes with every connection). A loopback address
// names no client in particular (""): every program on the machine shares it, so a per-client cap
// would only be a lower total.
func ClientID(r *http.Request, principal string) string {
	if principal != "" {
		return "principal:" + principal
	}
	return addrClient(hostOf(r.RemoteAddr))
}

func addrClient(host string) string {
	if ip := net.ParseIP(host); ip == nil || ip.IsLoopback() {
		if ip == nil && host != "" && host != "@" {
			return "addr:" + host
		}
		return ""
	}
	return "addr:" + host
}

func hostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}
