package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

func TestWriteJSONAndReadBack(t *testing.T) {
	vm, out := testVM(t, Config{})
	err := vm.RunString(`
		local p = write_json("sub/r.json", {name = "x", runs = {{ttft_ms = 12}, {ttft_ms = 7.25}}, empty = {}, obj = json_object()})
		print(p)
		local back = read_json("sub/r.json")
		print(back.runs[2].ttft_ms, #back.empty, back.name)
		write_json("sub/r2.json", back)`, "w.lua")
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(vm.cfg.Out, "sub", "r.json")
	if out.String() != p+"\n7.25\t0\tx\n" {
		t.Fatalf("output = %q", out.String())
	}
	want := "{\n  \"empty\": [],\n  \"name\": \"x\",\n  \"obj\": {},\n  \"runs\": [\n    {\n      \"ttft_ms\": 12\n    },\n    {\n      \"ttft_ms\": 7.25\n    }\n  ]\n}\n"
	for _, name := range []string{"r.json", "r2.json"} {
		got, err := os.ReadFile(filepath.Join(vm.cfg.Out, "sub", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Fatalf("%s:\n%s\nwant\n%s", name, got, want)
		}
	}
}

func TestWriteJSONErrorKeepsOldFile(t *testing.T) {
	vm, _ := testVM(t, Config{})
	err := vm.RunString(`write_json("r.json", {ok = true})
		write_json("r.json", {runs = {{}, {}, {ttft_ms = 0/0}}})`, "w.lua")
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "w.lua:2:", `write_json("r.json")`, "runs[3].ttft_ms: NaN")
	got, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "r.json"))
	if string(got) != "{\n  \"ok\": true\n}\n" {
		t.Fatalf("the earlier file was damaged: %q", got)
	}
}

func TestTextAndJSONLFiles(t *testing.T) {
	vm, out := testVM(t, Config{})
	abs := filepath.Join(t.TempDir(), "abs.txt")
	err := vm.RunString(`
		write_text("notes/a.txt", "héllo\n")
		write_text("`+abs+`", "absolute")
		append_jsonl("log.jsonl", {i = 1, tags = {"a"}})
		append_jsonl("log.jsonl", {i = 2, html = "<b>"})
		print(read_text("notes/a.txt") .. read_text("`+abs+`"))`, "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "héllo\nabsolute\n" {
		t.Fatalf("output = %q", out.String())
	}
	got, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "log.jsonl"))
	if string(got) != "{\"i\":1,\"tags\":[\"a\"]}\n{\"html\":\"<b>\",\"i\":2}\n" {
		t.Fatalf("log.jsonl = %q", got)
	}
}

func TestReadJSONErrorsNameFileAndPosition(t *testing.T) {
	vm, _ := testVM(t, Config{})
	writeFiles(t, vm.cfg.Out, map[string]string{"bad.json": "{\n  \"a\": [1,\n  ]\n}"})
	err := vm.RunString(`read_json("bad.json")`, "r.lua")
	if err == nil {
		t.Fatal("expected an error")
	}
	luatest.MustContain(t, err.Error(), "r.lua:1: read_json: "+filepath.Join(vm.cfg.Out, "bad.json")+": line 3, column 3")
	err = vm.RunString(`read_text("missing.txt")`, "r.lua")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(vm.cfg.Out, "missing.txt")) {
		t.Fatalf("got %v", err)
	}
}

func TestKBDocs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"b.md": "bee", "a.md": "ay", "skip.txt": "no"})
	vm, out := testVM(t, Config{KBDir: dir})
	err := vm.RunString(`
		local docs = kb_docs()
		print(#docs, docs[1].name, docs[1].text, docs[2].name)
		local bundled = kb_docs("")
		print(#bundled > 0, bundled[1].name < bundled[#bundled].name)`, "k.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "2\ta.md\tay\tb.md\ntrue\ttrue\n" {
		t.Fatalf("output = %q", out.String())
	}
	err = vm.RunString(`kb_docs("`+filepath.Join(dir, "nope")+`")`, "k.lua")
	if err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("got %v", err)
	}
}

func TestTimeBindings(t *testing.T) {
	vm, out := testVM(t, Config{})
	err := vm.RunString(`
		local a = now_ms()
		sleep_ms(15)
		local b = now_ms()
		print(b - a >= 15, a ~= math.floor(a) or b ~= math.floor(b))`, "t.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "true\ttrue\n" {
		t.Fatalf("now_ms must advance at least by the sleep and be fractional: %q", out.String())
	}
}

func TestLogContains(t *testing.T) {
	vm, _ := testVM(t, Config{Sources: map[string]string{"SERVER_LOG": "--server-log"}})
	err := vm.RunString(`log_contains("x")`, "l.lua")
	if err == nil {
		t.Fatal("expected an error without SERVER_LOG")
	}
	luatest.MustContain(t, err.Error(), "--server-log")

	log := filepath.Join(t.TempDir(), "server.log")
	vm2, out := testVM(t, Config{ServerLog: log})
	err = vm2.RunString(`log_contains("x")`, "l.lua")
	if err == nil {
		t.Fatal("expected an error for a missing log")
	}
	luatest.MustContain(t, err.Error(), log, "does not exist")
	writeFiles(t, filepath.Dir(log), map[string]string{"server.log": "srv  stop: cancel task, id_task = 5\n"})
	if err := vm2.RunString(`print(log_contains("stop: cancel task"), log_contains("nothing like this"))`, "l.lua"); err != nil {
		t.Fatal(err)
	}
	if out.String() != "true\tfalse\n" {
		t.Fatalf("output = %q", out.String())
	}
}

// TestTakeTurnCallsTheTurn: take_turn(step) calls Config.Turn with the
// step, raises its error, and returns at once without one; REPEAT is
// --repeat's value or nil.
func TestTakeTurnCallsTheTurn(t *testing.T) {
	var steps []string
	vm, _ := testVM(t, Config{Repeat: 4, Turn: func(step string) error {
		steps = append(steps, step)
		if step == "bad" {
			return errors.New("the other set-up stopped")
		}
		return nil
	}})
	if err := vm.RunString(`take_turn("cache"); take_turn("cache"); assert(REPEAT == 4)`, "turn"); err != nil {
		t.Fatal(err)
	}
	if strings.Join(steps, ",") != "cache,cache" {
		t.Fatalf("turns %v, want cache twice", steps)
	}
	err := vm.RunString(`take_turn("bad")`, "turn")
	if err == nil || !strings.Contains(err.Error(), "take_turn: the other set-up stopped") {
		t.Fatalf("error %v, want take_turn's", err)
	}
	plain, _ := testVM(t, Config{})
	if err := plain.RunString(`take_turn("cache"); assert(REPEAT == nil)`, "turn"); err != nil {
		t.Fatal(err)
	}
}
