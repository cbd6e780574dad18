//go:build !linux && !darwin

package durable

import "os"

// writeOutOnly is nil where the system has no write-out without a flush
// (Windows: FlushFileBuffers is the only call): WriteOut uses f.Sync.
var writeOutOnly func(f *os.File) error
