package cli

import (
	"context"
	"fmt"
	"runtime/debug"
)

// version is set at build time with
// -ldflags "-X ttftlab/internal/cli.version=..."; a plain build reports the
// module's VCS revision when Go recorded one.
var version = "dev"

// versionCmd is `ttftlab version`.
type versionCmd struct{ env *env }

func newVersion(e *env) runner { return &versionCmd{env: e} }

func (c *versionCmd) Run(_ context.Context, args []string) error {
	fs := c.env.flags("", "")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	fmt.Fprintln(c.env.Out, "ttftlab", buildVersion())
	return nil
}

func buildVersion() string {
	if version != "dev" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return version
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return version + " (" + rev + ")"
}
