// Package stdlib holds the Lua modules every script can require:
// statistics, sentence detection, speech pacing, voice, prompt building,
// ask, calls and option checks. They are embedded in the binary.
package stdlib

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

// FS holds the modules, one NAME.lua per module.
//
//go:embed *.lua
var FS embed.FS

// Names are the modules' names, sorted: the one list the usage, :help and
// the docs' lists are held to.
func Names() []string {
	files, _ := fs.Glob(FS, "*.lua")
	names := make([]string, 0, len(files))
	for _, f := range files {
		names = append(names, strings.TrimSuffix(f, ".lua"))
	}
	sort.Strings(names)
	return names
}
