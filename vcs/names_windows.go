//go:build windows

package vcs

func unwritableHere(name string) bool { return win32Refuses(name) }
