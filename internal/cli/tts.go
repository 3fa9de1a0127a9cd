package cli

var ttsCommands = &group{
	name:  "tts",
	about: "ttftlab tts: the default speech engine (Debian's espeak-ng behind OpenAI's /v1/audio/speech)",
	commands: []command{
		{"serve", "[--host H] [--port N]", "answer POST /v1/audio/speech with espeak-ng until Ctrl-C", newTTSServe},
		{"install", "[--force]", "install espeak-ng into ttftlab's cache and print its path", newTTSInstall},
	},
	notes: `espeak-ng is a formant synthesizer: it answers in milliseconds on a CPU, and its timings are
not a neural voice's. To measure a neural voice, run any server that answers OpenAI's
POST /v1/audio/speech (Kokoro-FastAPI, Speaches, vLLM-Omni, openedai-speech) and name its URL.
espeak-ng is found on ESPEAK_NG, then PATH, then in ttftlab's cache (installed on first use).
`,
}
