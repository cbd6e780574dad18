package main

import (
	"os"
	"syscall"
)

// sysStat is a file's change time and inode number.
func sysStat(fi os.FileInfo) (int64, uint64) {
	st := fi.Sys().(*syscall.Stat_t)
	return st.Ctim.Nano(), st.Ino
}
