// Package scripts embeds the lab's Lua scripts and its bundled knowledge
// base, so the binary runs the lab even where the source tree is absent.
package scripts

import (
	"embed"
	"io/fs"
	"regexp"
)

// FS holds lab.lua and its steps.
//
//go:embed *.lua
var FS embed.FS

// InstallScript is install-llama-server.sh, so `ttftlab server install`
// works without the source tree.
//
//go:embed install-llama-server.sh
var InstallScript []byte

// InstallSpeechScript is install-espeak-ng.sh, so `ttftlab tts install`
// works without the source tree.
//
//go:embed install-espeak-ng.sh
var InstallSpeechScript []byte

// InstallSTTScript is install-pocketsphinx.sh, so `ttftlab stt install`
// works without the source tree.
//
//go:embed install-pocketsphinx.sh
var InstallSTTScript []byte

// InstallerFiles are what the install scripts source from their folder,
// by name, to be written beside them (installer.Script.Beside).
var InstallerFiles = map[string][]byte{"private-apt.sh": privateApt}

//go:embed private-apt.sh
var privateApt []byte

//go:embed kb/*.md
var kbFiles embed.FS

// KB holds the bundled knowledge base, NN-topic.md files in prompt order:
// the front-desk facts of a fictional family clinic.
var KB = mustSub(kbFiles, "kb")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err) // dir is a constant that exists at build time
	}
	return sub
}

// labStep is a line of lab.lua's STEPS table: `{ file = "...", name = "NAME"`.
var labStep = regexp.MustCompile(`(?m)^\s*\{ file = "[^"]+",\s*name = "([a-z]+)"`)

// LabSteps names the lab's steps in order, read from lab.lua's STEPS
// table, so a list shown elsewhere (the usage) is never a stale copy.
func LabSteps() []string {
	src, err := FS.ReadFile("lab.lua")
	if err != nil {
		panic(err) // lab.lua is embedded at build time
	}
	var names []string
	for _, m := range labStep.FindAllSubmatch(src, -1) {
		names = append(names, string(m[1]))
	}
	return names
}
