package runtime

import (
	"path/filepath"
	"testing"
	"ttftlab/runtime/luatest"
)

// TestCheckNotMeasured: check_not_measured hands the lab's report step
// check's list in the report's order, each {step, why}; a steps.json it
// cannot read raises, naming the file.
func TestCheckNotMeasured(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	vm, _ := testVM(t, Config{Out: out})
	writeFiles(t, out, map[string]string{"ttft.json": "{}", "prefill.json": "{}", "sentence.json": "{}", "cancel.json": "{}",
		"bargein.json": "{}", "prefix.json": "{}", "audio.json": "{}"})
	got := eval(t, vm, `(function() local s = check_not_measured() return #s .. " " .. s[1].step .. " " .. s[1].why end)()`)
	if want := "1 cache cache.json is not in " + out; got.String() != want {
		t.Errorf("check_not_measured() gave %q, want %q", got.String(), want)
	}
	writeFiles(t, out, map[string]string{"steps.json": "[]"})
	if err := vm.L.DoString("check_not_measured()"); err == nil {
		t.Errorf("a steps.json of the wrong shape raised nothing")
	} else {
		luatest.MustContain(t, err.Error(), "check_not_measured: steps.json")
	}
}
