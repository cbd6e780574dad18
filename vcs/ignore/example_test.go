package ignore_test

import (
	"fmt"
	"strings"

	"github.com/ctxgit/ctxgit/vcs/ignore"
)

// A walker builds the lowest-precedence groups first, then pushes each
// directory's .gitignore as it descends. Extra patterns that do not come
// from a file, like ctxgit's secret excludes, are joined into one text.
func Example() {
	secrets := ignore.ParsePatterns([]byte(strings.Join([]string{".env*", "*.pem", "id_*"}, "\n")), "", "ctxgit:secrets")
	root := ignore.New(secrets).Push(ignore.ParsePatterns([]byte("build/\n*.log\n!.env.example\n"), "", ".gitignore"))
	sub := root.Push(ignore.ParsePatterns([]byte("!debug.log\n"), "srv", "srv/.gitignore"))

	fmt.Println(root.Match("build", true), root.Explain("build", true))
	fmt.Println(root.Match(".env", false), root.Explain(".env", false))
	fmt.Println(root.Match(".env.example", false), root.Explain(".env.example", false))
	fmt.Println(sub.Match("srv/debug.log", false), sub.Explain("srv/debug.log", false))
	fmt.Println(sub.Match("srv/main.go", false), sub.Explain("srv/main.go", false) == "")
	// Output:
	// true .gitignore:1:build/
	// true ctxgit:secrets:1:.env*
	// false .gitignore:3:!.env.example
	// false srv/.gitignore:1:!debug.log
	// false true
}
