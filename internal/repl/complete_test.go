package repl

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// completer returns a set-up session's completer.
func completer(t *testing.T) func(line string) (string, []string, string) {
	t.Helper()
	p := newPiped(t, "http://127.0.0.1:1")
	s := newSession(p.cfg)
	s.setup()
	if _, err := s.vm.Eval(context.Background(), `obj = setmetatable({own = 1}, {__index = {inherited = function() end, data = 2}})`, "t"); err != nil {
		t.Fatal(err)
	}
	return func(line string) (string, []string, string) {
		return s.complete(line, len([]rune(line)))
	}
}

func TestCompleteFieldsOfTables(t *testing.T) {
	complete := completer(t)
	for line, want := range map[string]struct {
		head  string
		items []string
	}{
		"x = stats.me": {"x = stats.", []string{"mean", "median"}},
		"stats.p":      {"stats.", []string{"percentile"}},
		"string.up":    {"string.", []string{"upper"}},
		"obj.":         {"obj.", []string{"data", "inherited", "own"}},
		"obj:":         {"obj:", []string{"inherited"}},
		`require("st`:  {`require("`, []string{"stats", "string"}},
		`require 'sen`: {`require '`, []string{"sentence"}},
		"print(km.":    {"print(km.", nil},
		"t[1].x":       {"t[1].x", nil},
		":lo":          {"", []string{":load"}},
		":help str":    {":help ", []string{"stream", "stream_many"}},
		":help ask.a":  {":help ", []string{"ask.ab"}},
		"ask.S":        {"ask.", nil},
	} {
		head, items, _ := complete(line)
		if head != want.head || !reflect.DeepEqual(items, want.items) {
			t.Errorf("%q: head %q items %v, want %q %v", line, head, items, want.head, want.items)
		}
	}
}

func TestCompleteGlobalsAndKeywords(t *testing.T) {
	complete := completer(t)
	head, items, _ := complete("x = st")
	for _, want := range []string{"stats", "stream", "string"} {
		if !slices.Contains(items, want) {
			t.Errorf("st: %v lacks %s", items, want)
		}
	}
	if head != "x = " {
		t.Errorf("head %q", head)
	}
	if _, items, _ := complete("fun"); !slices.Contains(items, "function") {
		t.Errorf("keywords: %v", items)
	}
	for _, name := range []string{"ask", "kb_docs", "write_json", "SERVER", "sentence", "prompt"} {
		if _, items, _ := complete(name[:len(name)-1]); !slices.Contains(items, name) {
			t.Errorf("%s not completed: %v", name, items)
		}
	}
}

func TestCompleteKeepsTextAfterTheCursor(t *testing.T) {
	p := newPiped(t, "http://127.0.0.1:1")
	s := newSession(p.cfg)
	s.setup()
	line := "stats.med({1})"
	head, items, tail := s.complete(line, len("stats.med"))
	if head != "stats." || !reflect.DeepEqual(items, []string{"median"}) || tail != "({1})" {
		t.Fatalf("head %q items %v tail %q", head, items, tail)
	}
}

func TestCompleteLoadFileNames(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mine.lua"), "")
	writeFile(t, filepath.Join(dir, "other.lua"), "")
	if err := os.Mkdir(filepath.Join(dir, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	complete := completer(t)
	head, items, _ := complete(":load " + dir + "/m")
	if head != ":load " || !reflect.DeepEqual(items, []string{dir + "/mine.lua", dir + "/more/"}) {
		t.Fatalf("head %q items %v", head, items)
	}
	if _, items, _ := complete(":load " + strings.TrimSuffix(dir, "/") + "/zz"); items != nil {
		t.Fatalf("no match: %v", items)
	}
}
