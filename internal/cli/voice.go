package cli

var voiceCommands = &group{
	name:  "voice",
	about: "ttftlab voice: a reference cascaded voice agent behind OpenAI's Realtime API",
	commands: []command{
		{"serve", "[--server URL] [--host H] [--port N] [flags]", "answer GET /v1/realtime with pocketsphinx, the LLM server and espeak-ng until Ctrl-C", newVoiceServe},
	},
	notes: `The agent is a cascade: the caller's speech heard and transcribed by pocketsphinx, the answer
streamed from the LLM server, each sentence spoken by espeak-ng as it completes. Its figures are a
cascade's on this machine's CPU, not a speech-to-speech model's. See docs/voice-agent.md.
`,
}
