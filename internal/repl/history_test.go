package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestHistoryEntries(t *testing.T) {
	for chunk, want := range map[string][]string{
		"1+1":                           {"1+1"},
		" secret = 1":                   nil,
		"   ":                           nil,
		"function f()\n  return 1\nend": {"function f()   return 1 end"},
		"t = {\n1, -- one\n2}":          {"t = {", "1, -- one", "2}"},
		"s = [[a\nb]]":                  {"s = [[a", "b]]"},
		":load x.lua":                   {":load x.lua"},
	} {
		if got := historyEntries(chunk); !reflect.DeepEqual(got, want) {
			t.Errorf("historyEntries(%q) = %q, want %q", chunk, got, want)
		}
	}
}

func TestHistoryLoadCreatesAndTrims(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "repl_history")
	h, entries, err := loadHistory(path)
	if err != nil || len(entries) != 0 {
		t.Fatalf("new file: %v, %v", entries, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("history file not created private: %v %v", fi, err)
	}
	if err := h.add([]string{"a", "a", "b"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "a\nb\n" {
		t.Fatalf("file %q: an immediate repeat must be skipped", data)
	}

	var b strings.Builder
	for i := range historyKeep + 200 {
		fmt.Fprintf(&b, "x = %d\n", i)
	}
	b.WriteString(strings.Repeat("y", historyLineMax+1) + "\n")
	b.WriteString("bad \xff\n")
	writeFile(t, path, b.String())
	_, entries, err = loadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != historyKeep || entries[0] != "x = 200" || entries[len(entries)-1] != fmt.Sprintf("x = %d", historyKeep+199) {
		t.Fatalf("%d entries, first %q last %q", len(entries), entries[0], entries[len(entries)-1])
	}
	data, _ = os.ReadFile(path)
	if got := strings.Count(string(data), "\n"); got != historyKeep {
		t.Fatalf("file keeps %d lines after trimming, want %d", got, historyKeep)
	}
}
