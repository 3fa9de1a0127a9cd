package tts

import "ttftlab/internal/espeak"

// openAIVoices are the voice names of OpenAI's speech API; a client that
// sends one of them (most do, by default) gets the voice of the text's
// language.
var openAIVoices = map[string]bool{"alloy": true, "ash": true, "ballad": true, "coral": true, "echo": true, "fable": true,
	"nova": true, "onyx": true, "sage": true, "shimmer": true, "verse": true, "auto": true, "": true}

// voice is the espeak-ng voice a request asks for.
func voice(asked, text string) string {
	if openAIVoices[asked] {
		return espeak.VoiceFor(text)
	}
	return asked
}
