//go:build !unix

package main

import "os"

// childPeakRSS: this OS's process state says nothing of peak memory to a
// portable reader, so the benchmark reports time alone.
func childPeakRSS(*os.ProcessState) (int64, bool) { return 0, false }
