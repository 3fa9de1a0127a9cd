package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// runner is one command, ready to run with its arguments.
type runner interface {
	Run(ctx context.Context, args []string) error
}

// command is an entry of a group: its name, what it takes and does, and
// how to make its runner.
type command struct {
	name, args, summary string
	make                func(*env) runner
}

// group is a command made of subcommands (ttftlab itself, server, model).
// name is its command path ("" at the top, "server").
type group struct {
	name, about, notes string
	commands           []command
}

func (g *group) runner(e *env) runner { return &groupRunner{g: g, env: e} }

// usage is the group's synopsis, a line per subcommand.
func (g *group) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nUsage:\n", g.about)
	for _, c := range g.commands {
		line := strings.TrimSpace(label(g.name) + " " + c.name + " " + c.args)
		if len(line) > 44 {
			fmt.Fprintf(&b, "  %s\n  %-44s %s\n", line, "", c.summary)
			continue
		}
		fmt.Fprintf(&b, "  %-44s %s\n", line, c.summary)
	}
	fmt.Fprintf(&b, "\nRun '%s COMMAND -h' for a command's flags.\n", label(g.name))
	if g.notes != "" {
		b.WriteString("\n" + g.notes)
	}
	return b.String()
}

type groupRunner struct {
	g   *group
	env *env
}

// Run dispatches to the subcommand named by args[0].
func (r *groupRunner) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return &usageError{cmd: r.g.name, usage: r.g.usage(), err: errors.New("missing command")}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(r.env.Out, r.g.usage())
		return nil
	case "--version", "-version":
		if r.g == commands {
			args = []string{"version"}
		}
	}
	for _, c := range r.g.commands {
		if c.name == args[0] {
			r.env.cmd = strings.TrimSpace(r.g.name + " " + c.name)
			return c.make(r.env).Run(ctx, args[1:])
		}
	}
	return &usageError{cmd: r.g.name, usage: r.g.usage(), err: fmt.Errorf("unknown command %q", args[0])}
}
