// Command mkcompletions writes the shell completion scripts of every
// pcpkit tool (internal/cli/registry) into a directory: pcpkit.bash,
// pcpkit.zsh and pcpkit.fish. `make completions` runs it; it is not
// installed.
//
//	go run ./internal/cli/mkcompletions DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/pcpkit/pcpkit/internal/cli"
	"github.com/pcpkit/pcpkit/internal/cli/registry"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mkcompletions DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "mkcompletions:", err)
		os.Exit(1)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		s, err := cli.Completion(shell, registry.Tools)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, "pcpkit."+shell), []byte(s), 0o644)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mkcompletions:", err)
			os.Exit(1)
		}
	}
}
