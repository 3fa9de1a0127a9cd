// Package scripts embeds the lab's Lua scripts so the binary runs the lab
// even where the source tree is absent.
package scripts

import "embed"

// FS holds lab.lua and its steps.
//
//go:embed *.lua
var FS embed.FS

// InstallScript is install-llama-server.sh, so `ttftlab server install`
// works without the source tree.
//
//go:embed install-llama-server.sh
var InstallScript []byte
