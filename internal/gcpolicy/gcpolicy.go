// Package gcpolicy sets the garbage collector for a command that lives
// for one operation. Most ctxgit processes allocate a few megabytes and
// exit: collecting then is wasted work on the hook path, so the collector
// stays off below a memory limit. A fixed limit is wrong for a large
// workspace, though: once the live heap passes it the collector runs
// without end (at 184,880 files a no-change checkpoint collected 56
// times under a fixed 32 MiB, docs/PERFORMANCE.md). So the limit here
// follows what the process holds: it starts at a base, rises to what a
// caller says it will hold (Expect, from the size of the stat cache it
// read), and after every collection to twice the heap it kept, as
// GOGC=100 would, so a collection always frees at least as much as it
// keeps.
//
// Nothing happens unless the program calls Start; GOGC or GOMEMLIMIT in
// the environment win over it.
package gcpolicy

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

var (
	mu     sync.Mutex
	active bool
	base   int64
	limit  int64
)

// Start turns the proportional collector off and sets the memory limit to
// base, unless GOGC or GOMEMLIMIT is set in the environment (then the
// runtime's own settings stand and Expect does nothing).
func Start(b int64) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	mu.Lock()
	active, base, limit = true, b, b
	mu.Unlock()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(b)
	watch()
}

// Expect says the process will hold about n bytes live from now on, in
// all (a caller whose estimate grows calls it again): the limit becomes
// at least base + 2n, room for what it holds, as much again for the
// garbage it makes around it, and the base for the rest. A caller that
// knows what it will hold never waits for a collection to find out.
func Expect(n int64) { raise(base + 2*n) }

// Limit is the memory limit the policy has set, 0 when it is not active.
func Limit() int64 {
	mu.Lock()
	defer mu.Unlock()
	if !active {
		return 0
	}
	return limit
}

// raise sets the limit to at least n; it is never lowered.
func raise(n int64) {
	mu.Lock()
	defer mu.Unlock()
	if active && n > limit {
		limit = n
		debug.SetMemoryLimit(n)
	}
}

// sentinel is allocated to be collected: its cleanup runs after the
// collection that found it unreachable. Large enough not to share a
// tiny-allocator block, whose cleanups would wait for its neighbours.
type sentinel [32]byte

// watch arms a cleanup that follows the next collection: it raises the
// limit to twice the live heap that collection left, then arms again.
func watch() {
	runtime.AddCleanup(new(sentinel), func(struct{}) {
		// Just after a collection the heap in use is what it kept. The
		// limit counts all of the runtime's memory: what is not heap,
		// and twice the heap. (Not runtime/metrics: its package
		// initialisation would run in every ctxgit process, a hook's on
		// every tool call included.)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		raise(int64(ms.Sys-ms.HeapSys) + 2*int64(ms.HeapAlloc))
		watch()
	}, struct{}{})
}
