//go:build !unix

package detach

func childInfo() string { return "started" }
