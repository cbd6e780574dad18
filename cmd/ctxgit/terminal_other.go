//go:build !windows

package main

import "os"

// enableEscapes: Unix terminals process escape sequences already.
func enableEscapes(*os.File) bool { return true }
