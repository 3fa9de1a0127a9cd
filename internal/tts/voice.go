// Package tts is ttftlab's default speech engine: Debian's espeak-ng,
// installed into ttftlab's cache on first use, served behind the same
// OpenAI-compatible POST /v1/audio/speech any other text-to-speech server
// answers, so one code path measures it and them. espeak-ng is a formant
// synthesizer: its timings are not a neural voice's.
package tts

import "unicode"

// VoiceFor is the espeak-ng voice for text when none is named: Mandarin
// for Han characters, Korean for Hangul, Japanese for kana, else English.
// The first letter of one of those scripts decides.
func VoiceFor(text string) string {
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Hangul, r):
			return "ko"
		case unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
			return "ja"
		case unicode.Is(unicode.Han, r):
			// Han before any kana: Chinese, unless kana follows.
			for _, k := range text {
				if unicode.Is(unicode.Hiragana, k) || unicode.Is(unicode.Katakana, k) {
					return "ja"
				}
			}
			return "cmn"
		case unicode.IsLetter(r) && r < 0x2E80:
			return "en"
		}
	}
	return "en"
}

// openAIVoices are the voice names of OpenAI's speech API; a client that
// sends one of them (most do, by default) gets the voice of the text's
// language.
var openAIVoices = map[string]bool{"alloy": true, "ash": true, "ballad": true, "coral": true, "echo": true, "fable": true,
	"nova": true, "onyx": true, "sage": true, "shimmer": true, "verse": true, "auto": true, "": true}

// voice is the espeak-ng voice a request asks for.
func voice(asked, text string) string {
	if openAIVoices[asked] {
		return VoiceFor(text)
	}
	return asked
}
