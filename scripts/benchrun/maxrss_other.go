//go:build !unix

package main

import "os"

// maxRSS is 0 where the system reports no peak memory of a child: the
// benchmarks are run on Linux; elsewhere this only builds.
func maxRSS(*os.ProcessState) int64 { return 0 }
