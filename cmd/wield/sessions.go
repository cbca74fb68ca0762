package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
)

func (a *app) sessionsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List and delete the conversations kept by chat --session",
		Long:  "sessions manages the conversations that wield chat --session NAME keeps in " + sessionsHint + ".",
		Example: `  wield sessions list
  wield sessions delete planning`,
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the sessions",
		Example: "  wield sessions list",
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !a.sessionsExist() {
				return nil
			}
			store, err := a.openSessions(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			ids, err := store.Conversations(cmd.Context())
			if err != nil {
				return err
			}
			for _, id := range ids {
				fmt.Fprintln(a.stdout, id)
			}
			return nil
		},
	}
	del := &cobra.Command{
		Use:     "delete NAME...",
		Short:   "Delete sessions and their messages",
		Example: "  wield sessions delete planning",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name the sessions to delete")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if !a.sessionsExist() {
				return fmt.Errorf("no session named %q", args[0])
			}
			store, err := a.openSessions(cmd.Context())
			if err != nil {
				return err
			}
			defer store.Close()
			for _, name := range args {
				ids, err := store.Conversations(cmd.Context())
				if err != nil {
					return err
				}
				if !slices.Contains(ids, name) {
					return fmt.Errorf("no session named %q", name)
				}
				if err := store.Delete(cmd.Context(), name); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.AddCommand(list, del)
	return groupCommand(cmd)
}

// sessionsExist reports whether the session store has been created, so that listing sessions
// does not create it.
func (a *app) sessionsExist() bool {
	dir, err := a.dataDir()
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "sessions.db"))
	return err == nil
}
