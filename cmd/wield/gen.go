package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/internal/gen"
)

func (a *app) genCommand() *cobra.Command {
	var (
		cfg     gen.Config
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "gen [DIR]",
		Short: "Generate tool registrations from //wield:tool methods (go generate)",
		Long: `gen reads the Go package in DIR (the current directory by default), finds the methods marked
with a //wield:tool directive and writes ` + gen.DefaultOutput + `, which registers them for tool.Methods:
the tool's description comes from the method's doc comment, its parameters' descriptions from the
comments on the input struct's fields.

Directive options: name=NAME sets the tool's name (default: the method's name in lowerCamel case);
returnDirect makes the tool's result the final answer.

  // GetCurrentDateTime gets the current date and time in the user's time zone.
  //
  //wield:tool
  func (d *DateTimeTools) GetCurrentDateTime() string

A package without tool methods gets no file (and loses a stale one).`,
		Example: `  # in your module, the generator alone as a tool (it does not pull in the providers' SDKs):
  go get -tool github.com/wield-ai/wield/cmd/wieldgen
  # in a source file of the package:
  //go:generate go tool wieldgen

  # then
  go generate ./...

  # or directly
  wield gen ./internal/tools -o tools_gen.go`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				cfg.Dir = args[0]
			}
			res, err := gen.Generate(cfg)
			if err != nil {
				return err
			}
			if verbose {
				fmt.Fprintln(a.stderr, "wield gen: "+res.String())
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&cfg.Output, "output", "o", gen.DefaultOutput, "name of the generated file in the package directory")
	cmd.Flags().StringSliceVar(&cfg.BuildTags, "tags", nil, "extra build tags selecting the package's files")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "say what was written")
	return cmd
}
