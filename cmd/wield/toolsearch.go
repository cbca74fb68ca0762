package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/wield-ai/wield/client"
)

func (a *app) registerToolSearchFlag(cmd *cobra.Command, on *bool) {}

func (a *app) toolSearchAdvisor(c *catalog) (client.Advisor, error) {
	return nil, errors.New("tool search is not available")
}
