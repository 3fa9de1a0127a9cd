package cli

import (
	"context"
	"fmt"

	"ttftlab/internal/pocketsphinx"
)

// sttInstallCmd is `ttftlab stt install [--force]`.
type sttInstallCmd struct{ env *env }

func newSTTInstall(e *env) runner { return &sttInstallCmd{env: e} }

func (c *sttInstallCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--force]", "Installs Debian's pocketsphinx 5 with its en-us model into a private prefix in ttftlab's cache\n"+
		"(with its own C library and loader) and prints its path.")
	force := fs.Bool("force", false, "reinstall even when pocketsphinx is already found")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	path, err := pocketsphinx.Install(ctx, *force, c.env.Err)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Out, "pocketsphinx: %s\n", path)
	return nil
}
