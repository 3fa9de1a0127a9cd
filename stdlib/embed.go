// Package stdlib holds the Lua modules every script can require: statistics,
// sentence detection, speech pacing, prompt building and ask. They are embedded in the binary.
package stdlib

import "embed"

// FS holds the modules, one NAME.lua per module.
//
//go:embed *.lua
var FS embed.FS
