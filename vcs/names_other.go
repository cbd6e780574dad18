//go:build !windows

package vcs

func unwritableHere(string) bool { return false }
