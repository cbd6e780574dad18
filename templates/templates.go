// Package templates holds the files ctxgit writes from templates, embedded
// so the binary needs nothing beside it.
package templates

import "embed"

// Init holds the files `ctxgit init` creates under .ctxgit/, by name.
//
//go:embed init
var Init embed.FS
