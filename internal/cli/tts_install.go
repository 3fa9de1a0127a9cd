package cli

import (
	"context"
	"fmt"

	"ttftlab/internal/tts"
)

// ttsInstallCmd is `ttftlab tts install [--force]`.
type ttsInstallCmd struct{ env *env }

func newTTSInstall(e *env) runner { return &ttsInstallCmd{env: e} }

func (c *ttsInstallCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--force]", "Installs Debian's espeak-ng into a private prefix in ttftlab's cache and prints its path.")
	force := fs.Bool("force", false, "reinstall even when espeak-ng is already found")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	path, err := tts.Install(ctx, *force, c.env.Err)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Out, "espeak-ng: %s\n", path)
	return nil
}
