package mcpserver

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drained is a transport whose connection, at the end of its input,
// answers every request it read before it reports the end. Over stdio a
// client may write its requests and close its end at once (a script
// piping lines in); without this the SDK closes the connection on EOF
// and drops the answers still being worked on.
// drainWait bounds how long the end of input waits for answers.
const drainWait = 30 * time.Second

type drained struct{ mcp.Transport }

func (t drained) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	d := &drainConn{Connection: c, pending: map[jsonrpc.ID]bool{}}
	d.idle = sync.NewCond(&d.mu)
	return d, nil
}

type drainConn struct {
	mcp.Connection
	mu   sync.Mutex
	idle *sync.Cond
	// pending holds the ids of the calls read and not yet answered. By
	// id, not by count: a call whose id is already in flight is one the
	// SDK drops unanswered (jsonrpc2's "request ID already in use"), and
	// counting it would hold the end of input for drainWait.
	pending map[jsonrpc.ID]bool
}

func (d *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := d.Connection.Read(ctx)
	if err != nil {
		// Wait for the answers (or the end of ctx: Ctrl-C), at most
		// drainWait: a handler stuck on a lock does not hold the exit.
		ctx, cancel := context.WithTimeout(ctx, drainWait)
		defer cancel()
		stop := context.AfterFunc(ctx, func() {
			d.mu.Lock()
			d.idle.Broadcast()
			d.mu.Unlock()
		})
		defer stop()
		d.mu.Lock()
		for len(d.pending) > 0 && ctx.Err() == nil {
			d.idle.Wait()
		}
		d.mu.Unlock()
		return nil, err
	}
	// subscriptions/listen stays open until the client goes: nothing to
	// wait for.
	if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() && r.Method != "subscriptions/listen" {
		d.mu.Lock()
		d.pending[r.ID] = true
		d.mu.Unlock()
	}
	return msg, nil
}

func (d *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := d.Connection.Write(ctx, msg)
	if r, ok := msg.(*jsonrpc.Response); ok {
		d.mu.Lock()
		delete(d.pending, r.ID)
		d.idle.Broadcast()
		d.mu.Unlock()
	}
	return err
}

// maxMessage bounds one line of input, as the state files a checkpoint
// reads are bounded: a client cannot make the server hold more.
const maxMessage = 4 << 20

// lineLimit fails a read once a line runs past maxMessage bytes.
type lineLimit struct {
	r    io.Reader
	line int
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.line = 0
			continue
		}
		if l.line++; l.line > maxMessage {
			return 0, errTooLong
		}
	}
	return n, err
}

var errTooLong = errors.New("message over 4 MiB")
