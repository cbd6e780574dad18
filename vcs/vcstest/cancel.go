package vcstest

import (
	"context"
	"sync"
	"sync/atomic"
)

// CancelAfter is a context that reports itself cancelled from the n+1st
// call of Err on (n = 0: at once). Code that checks its context between
// steps is thereby stopped at its nth check, deterministically, so a test
// can interrupt an operation at every point it may be interrupted and
// check what each interruption left.
func CancelAfter(n int) context.Context {
	c := &countdown{Context: context.Background(), done: make(chan struct{})}
	c.left.Store(int64(n))
	return c
}

type countdown struct {
	context.Context
	left atomic.Int64
	once sync.Once
	done chan struct{}
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		c.once.Do(func() { close(c.done) })
		return context.Canceled
	}
	return nil
}

func (c *countdown) Done() <-chan struct{} { return c.done }
