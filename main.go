// Command ttftlab measures how an LLM server streams its answer: time to
// first token, prefill, prompt cache, first sentence and cancellation, from
// Lua scripts run by a precisely timed host.
package main

import (
	"context"
	"os"

	"ttftlab/internal/cli"
)

func main() {
	os.Exit(cli.Main(context.Background(), os.Args[1:], cli.OS()))
}
