// Command wieldgen is wield gen on its own, for go generate: it reads a Go package, finds the
// methods marked with a //wield:tool directive, and writes the registration file tool.Methods
// reads (wield_tools.go). It imports only wield's generator, so a module that runs it as a tool
// does not take on the model providers' SDKs that the wield command needs:
//
//	go get -tool github.com/wield-ai/wield/cmd/wieldgen
//
// and, in a source file of the package with tool methods:
//
//	//go:generate go tool wieldgen
//
// Usage:
//
//	wieldgen [-o FILE] [-tags TAG,...] [-v] [DIR]
//
// DIR is the package directory, the current one by default. Exit codes: 0 success, 1 an error
// in the package, 2 a usage error.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/wield-ai/wield/internal/gen"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("wieldgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		cfg     gen.Config
		tags    string
		verbose bool
	)
	fs.StringVar(&cfg.Output, "o", gen.DefaultOutput, "name of the generated `file` in the package directory")
	fs.StringVar(&tags, "tags", "", "comma-separated extra build `tags` selecting the package's files")
	fs.BoolVar(&verbose, "v", false, "say what was written")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `usage: wieldgen [-o FILE] [-tags TAG,...] [-v] [DIR]

wieldgen writes %s for the //wield:tool methods of the Go package in DIR (the current directory
by default): tool names, descriptions from the methods' doc comments, and parameter descriptions
from the comments on the input structs' fields. A package without tool methods gets no file (and
loses a stale one).

`, gen.DefaultOutput)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(stderr, "wieldgen: at most one package directory")
		fs.Usage()
		return 2
	}
	cfg.Dir = fs.Arg(0)
	if tags != "" {
		cfg.BuildTags = strings.Split(tags, ",")
	}
	res, err := gen.Generate(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "wieldgen: %v\n", err)
		return 1
	}
	if verbose {
		fmt.Fprintln(stderr, "wieldgen: "+res.String())
	}
	return 0
}
