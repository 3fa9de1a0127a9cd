package cli

var sttCommands = &group{
	name:  "stt",
	about: "ttftlab stt: the default speech-to-text engine (Debian's pocketsphinx 5 behind OpenAI's /v1/audio/transcriptions and /v1/realtime)",
	commands: []command{
		{"serve", "[--host H] [--port N]", "answer POST /v1/audio/transcriptions and GET /v1/realtime with pocketsphinx until Ctrl-C", newSTTServe},
		{"install", "[--force]", "install pocketsphinx and its en-us model into ttftlab's cache and print its path", newSTTInstall},
	},
	notes: `pocketsphinx is a 2010s recognizer: English only, its accuracy and its timing are not a modern
model's, and it takes about a quarter of a core per real-time stream. To measure a modern engine,
run one (vLLM, Speaches, whisper.cpp's whisper-server, a hosted API) and name its URL with --stt.
pocketsphinx is found on TTFTLAB_POCKETSPHINX, then PATH, then in ttftlab's cache (installed on
first use).
`,
}
