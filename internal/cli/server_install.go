package cli

import (
	"context"
	"fmt"

	"ttftlab/internal/llamaserver"
)

// serverInstallCmd is `ttftlab server install [--force]`.
type serverInstallCmd struct{ env *env }

func newServerInstall(e *env) runner { return &serverInstallCmd{env: e} }

func (c *serverInstallCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--force]", "Installs llama-server from Debian's packages into a private prefix and prints its path.")
	force := fs.Bool("force", false, "reinstall even when llama-server is already found")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	path, err := llamaserver.Install(ctx, *force, c.env.Err)
	if err != nil {
		return fmt.Errorf("%w; %s", err, llamaserver.InstallFailedHint)
	}
	fmt.Fprintf(c.env.Out, "llama-server: %s\n", path)
	return nil
}
