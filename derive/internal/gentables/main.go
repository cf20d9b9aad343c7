// Command gentables writes package derive's parse tables (tables_603.go
// and tables_current.go) from the grammar in derive/internal/grammar.
// go generate runs it in derive/:
//
//	go generate ./derive/
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pcpkit/pcpkit/derive/internal/grammar"
)

func main() {
	dir := "."
	if len(os.Args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: gentables [directory of package derive]")
		os.Exit(2)
	}
	if len(os.Args) == 2 {
		dir = os.Args[1]
	}
	files, err := grammar.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gentables:", err)
		os.Exit(1)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), f.Source, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gentables:", err)
			os.Exit(1)
		}
	}
}
