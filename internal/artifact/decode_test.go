package artifact

import (
	"strings"
	"testing"
)

func TestDecodeNamesEveryProblemByPath(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       []string
	}{
		{"missing member", `{"runs":[{"ttft_ms":1,"total_ms":2,"tokens":3},{"ttft_ms":1,"tokens":3}],"ttft_p50":1,"total_p50":2}`,
			[]string{"runs[1].total_ms is missing"}},
		{"wrong type", `{"runs":[{"ttft_ms":"14.25","total_ms":2,"tokens":3}],"ttft_p50":1,"total_p50":2}`,
			[]string{`runs[0].ttft_ms is the string "14.25", want a number`}},
		{"null where a number must be", `{"runs":[],"ttft_p50":null,"total_p50":2}`,
			[]string{"ttft_p50 is null, want a number"}},
		{"not an object", `[1,2]`, []string{"the top level is an array, want an object"}},
		{"syntax", `{"runs":`, []string{"not valid JSON"}},
		{"two values", `{} {}`, []string{"more than one value"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v TTFT
			err := Decode([]byte(c.data), &v)
			if err == nil {
				t.Fatalf("Decode(%s) = nil, want an error", c.data)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestDecodeAcceptsOptionalNullAndUnknown(t *testing.T) {
	var r Report
	data := `{"ttft_p50_ms":1,"total_p50_ms":2,"ttft_12docs_ms":3,"prompt_n_12docs":4,"cache_ttft_ms":5,
	"first_sentence_ms":6,"cancel_idle_ms":7,"speech_stall_ms":0,"first_audio_p50_ms":null,"bargein_resumed_ttft_ms":8,"bargein_cold_ttft_ms":9,
	"prefix_front_prompt_n":10,"prefix_last_prompt_n":11,"model":{"name":null,"path":null,"synthetic":false},"newer":{"x":1},
	"server":{"n_ctx":2048,"slots":1,"threads":null,"cache_ram":null,"args":null,"build":null}}`
	if err := Decode([]byte(data), &r); err != nil {
		t.Fatal(err)
	}
	if r.Model.Name != nil || r.Server == nil || r.Server.Args != nil || r.PrefixLastPromptN == nil || *r.PrefixLastPromptN != 11 {
		t.Errorf("decoded %+v", r)
	}
	// A member that must be there, even as null.
	if err := Decode([]byte(strings.Replace(data, `"name":null,`, ``, 1)), &r); err == nil ||
		!strings.Contains(err.Error(), "model.name is missing") {
		t.Errorf("model without name: %v", err)
	}
}

func TestDecodeCapsTheList(t *testing.T) {
	var p []PrefillRow
	err := Decode([]byte(`[{},{},{}]`), &p)
	if err == nil || !strings.Contains(err.Error(), "and 6 more") {
		t.Errorf("12 problems: %v", err)
	}
}
