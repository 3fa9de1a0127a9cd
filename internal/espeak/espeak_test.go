package espeak

import "testing"

func TestVoiceFor(t *testing.T) {
	for text, want := range map[string]string{
		"Hello there.": "en", "你好，今天怎么样？": "cmn", "안녕하세요.": "ko", "こんにちは。": "ja",
		"東京へ行きます。": "ja", "12, 3.": "en", "« Bonjour »": "en",
	} {
		if got := VoiceFor(text); got != want {
			t.Errorf("VoiceFor(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestParseVoices(t *testing.T) {
	table := `Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  cmn             --/M      Chinese_(Mandarin) sit/cmn              (zh-cmn 5)(zh 5)
 5  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 5  ko              --/M      Korean             ko
`
	vs := ParseVoices(table)
	for _, v := range []string{"cmn", "zh", "zh-cmn", "sit/cmn", "en-us", "gmw/en-us", "en", "EN-US+f3", "ko"} {
		if !vs.Has(v) {
			t.Errorf("voice %s not found in %v", v, vs)
		}
	}
	for _, v := range []string{"ja", "no-such-voice", "Language"} {
		if vs.Has(v) {
			t.Errorf("voice %s found", v)
		}
	}
}
