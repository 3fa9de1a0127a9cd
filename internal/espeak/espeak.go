// Package espeak holds what the speech engine (internal/tts) and the
// caller's synthesized audio (internal/callaudio) know alike of
// espeak-ng: the voice it speaks a text in when none is named, and the
// sample rate it writes, the voices it has.
package espeak

import (
	"fmt"
	"os/exec"
	"strings"
	"unicode"
)

// Rate is the sample rate espeak-ng writes (16-bit mono WAV).
const Rate = 22050

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

// Voices are the voices an espeak-ng has: language codes, voice files and
// the other languages a voice speaks, lower case.
type Voices map[string]bool

// ListVoices asks the espeak-ng at bin for its voices (`--voices`).
func ListVoices(bin string) (Voices, error) {
	out, err := exec.Command(bin, "--voices").Output()
	if err != nil {
		return nil, fmt.Errorf("cannot list espeak-ng's voices (%s --voices): %v", bin, err)
	}
	return ParseVoices(string(out)), nil
}

// ParseVoices reads the table `espeak-ng --voices` prints.
func ParseVoices(table string) Voices {
	known := Voices{}
	for _, line := range strings.Split(table, "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		known[strings.ToLower(f[1])] = true
		file := strings.ToLower(f[4])
		known[file] = true
		if _, b, ok := strings.Cut(file, "/"); ok {
			known[b] = true
		}
		// Other languages: "(en 2)(en-gb 5)".
		rest := strings.Join(f[5:], " ")
		for _, part := range strings.Split(rest, "(")[1:] {
			if code, _, ok := strings.Cut(part, " "); ok {
				known[strings.ToLower(code)] = true
			}
		}
	}
	return known
}

// Has says whether v, with an optional +variant, is one of the voices.
// espeak-ng itself speaks English for a voice it lacks, silently.
func (vs Voices) Has(v string) bool {
	base, _, _ := strings.Cut(v, "+")
	return vs[strings.ToLower(base)]
}
