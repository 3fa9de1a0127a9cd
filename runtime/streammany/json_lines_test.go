package streammany_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// TestWatchRefusesInfiniteTags: a watch tag that is not finite is
// refused when the run starts, naming it.
func TestWatchRefusesInfiniteTags(t *testing.T) {
	vm, _ := testVM(t, runtime.Config{Server: "http://127.0.0.1:1"})
	err := vm.RunString(`stream_many({}, {watch = {file = "w.jsonl", tags = {level = math.huge}}})`, "w.lua")
	if err == nil {
		t.Fatal("a tag of math.huge was accepted")
	}
	luatest.MustContain(t, err.Error(), "w.lua:1:", "opts.watch.tags.level", "use a finite number or a string")
}

// TestRecordLinesStayJSON: stream_many's record goes through
// write_json's encoder: a tag that cannot be written is an error naming
// it, and the JSONL file never holds a line a strict parser refuses.
func TestRecordLinesStayJSON(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hi."}}).Start(t)
	for _, tags := range []string{"{level = math.huge}", "{level = 0/0}", "{level = 1/0}"} {
		vm, _ := testVM(t, runtime.Config{Server: url})
		err := vm.RunString(`stream_many({{"a", {max_tokens = 4}}, {"b", {max_tokens = 4}}},
			{record = {jsonl = "r.jsonl", tags = `+tags+`}})`, "r.lua")
		if err == nil {
			t.Fatalf("%s: recorded without an error", tags)
		}
		luatest.MustContain(t, err.Error(), "level: ")
		data, _ := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
		for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var v any // a number beyond float64 fails here too, unlike json.Valid
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s: r.jsonl holds %q: %v", tags, line, err)
			}
		}
	}
}
