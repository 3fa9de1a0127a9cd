package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"ttftlab/scripts"
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
	dir, err := os.MkdirTemp("", "ttftlab-install")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "install-llama-server.sh")
	if err := os.WriteFile(script, scripts.InstallScript, 0o755); err != nil {
		return err
	}
	cmdArgs := []string{script}
	if *force {
		cmdArgs = append(cmdArgs, "--force")
	}
	cmd := exec.CommandContext(ctx, "bash", cmdArgs...)
	cmd.Stderr = c.env.Err
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("the installation failed: %w", err)
	}
	fmt.Fprintf(c.env.Out, "llama-server: %s\n", strings.TrimSpace(string(out)))
	return nil
}
