package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"ttftlab/runtime/luatest"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream/streamtest"
)

func TestEvalReturnsTheChunksValues(t *testing.T) {
	vm, _ := testVM(t, Config{})
	got, err := vm.Eval(context.Background(), `return 1 + 1, "a", nil`, "stdin")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != lua.LNumber(2) || got[1] != lua.LString("a") || got[2] != lua.LNil {
		t.Fatalf("Eval returned %v", got)
	}
	if got, err := vm.Eval(context.Background(), `x = 5`, "stdin"); err != nil || len(got) != 0 {
		t.Fatalf("a statement returned %v, %v", got, err)
	}
	if top := vm.L.GetTop(); top != 0 {
		t.Fatalf("Eval left %d values on the stack", top)
	}
}

// TestEvalAfterCancel: a cancelled evaluation ends with context.Canceled
// and the next one, under a fresh context, runs normally, blocking
// bindings included.
func TestEvalAfterCancel(t *testing.T) {
	vm, out := testVM(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := vm.Eval(ctx, `x = 1 while true do pcall(function() end) end`, "stdin")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("busy loop: got %v, want context.Canceled", err)
	}
	got, err := vm.Eval(context.Background(), `sleep_ms(1) print("still here") return x + 1`, "stdin")
	if err != nil || len(got) != 1 || got[0] != lua.LNumber(2) {
		t.Fatalf("after a cancel: %v, %v", got, err)
	}
	luatest.MustContain(t, out.String(), "still here")
}

func TestEvalErrorKeepsTheVMUsable(t *testing.T) {
	vm, _ := testVM(t, Config{})
	_, err := vm.Eval(context.Background(), `error("boom")`, "stdin")
	if err == nil || !strings.Contains(err.Error(), "stdin:1: boom") {
		t.Fatalf("got %v", err)
	}
	if got, err := vm.Eval(context.Background(), `return 3`, "stdin"); err != nil || got[0] != lua.LNumber(3) {
		t.Fatalf("after an error: %v, %v", got, err)
	}
}

func TestEvalOSExit(t *testing.T) {
	vm, _ := testVM(t, Config{})
	_, err := vm.Eval(context.Background(), `pcall(os.exit, 4) return 1`, "stdin")
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Code != 4 {
		t.Fatalf("got %v, want os.exit(4)", err)
	}
}

// TestInterruptedStreamKeepsWhatArrived: cancelling the context of a
// running stream() closes the connection and leaves the partial answer for
// the host.
func TestInterruptedStreamKeepsWhatArrived(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: strings.Split("a b c d e f g h i j k l m n o p", " "), Delay: 20 * time.Millisecond}
	url := f.Start(t)
	vm, _ := testVM(t, Config{Server: url})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	vm.L.SetGlobal("cancel_now", vm.L.NewFunction(func(*lua.LState) int { cancel(); return 0 }))
	_, err := vm.Eval(ctx, `stream("hi", {on_chunk = function(c) if c.index == 2 then cancel_now() end end})`, "stdin")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	select {
	case <-f.Gone():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	in := vm.Interrupted()
	if in == nil || len(in.Values) != 4 || !in.OnChunk {
		t.Fatalf("Interrupted() = %+v", in)
	}
	chunks := in.Values[0].(*lua.LTable)
	info := in.Values[3].(*lua.LTable)
	if n := chunks.Len(); n < 2 || n >= len(f.Pieces) {
		t.Fatalf("%d chunks kept, want at least the 2 seen before the cancel and fewer than all", n)
	}
	if first := chunks.RawGetInt(1).(*lua.LTable).RawGetString("text"); first != lua.LString("a") {
		t.Fatalf("first chunk text %v", first)
	}
	if msg := info.RawGetString("error").String(); !strings.Contains(msg, "canceled while on_chunk ran") {
		t.Fatalf("info.error = %q", msg)
	}
	if info.RawGetString("cut") != lua.LTrue || info.RawGetString("closed_at_ms") != in.Values[1] {
		t.Fatalf("a cancel inside on_chunk closes the connection: cut %v closed_at_ms %v total_ms %v",
			info.RawGetString("cut"), info.RawGetString("closed_at_ms"), in.Values[1])
	}
	if _, err := vm.Eval(context.Background(), `return 1`, "stdin"); err != nil || vm.Interrupted() != nil {
		t.Fatalf("the next run must start without an interrupted stream: %v, %v", err, vm.Interrupted())
	}
}

func TestInterruptedStreamWithoutCallback(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: strings.Split("a b c d e f g h i j k l m n o p", " "), Delay: 20 * time.Millisecond}
	url := f.Start(t)
	vm, _ := testVM(t, Config{Server: url})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(70*time.Millisecond, cancel)
	_, err := vm.Eval(ctx, `stream("hi")`, "stdin")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	select {
	case <-f.Gone():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	in := vm.Interrupted()
	if in == nil || in.OnChunk {
		t.Fatalf("Interrupted() = %+v", in)
	}
	chunks := in.Values[0].(*lua.LTable)
	info := in.Values[3].(*lua.LTable)
	if chunks.Len() >= len(f.Pieces) || info.RawGetString("cut") != lua.LTrue || info.RawGetString("done") != lua.LFalse {
		t.Fatalf("%d chunks, cut %v, done %v", chunks.Len(), info.RawGetString("cut"), info.RawGetString("done"))
	}
	if msg := info.RawGetString("error").String(); !strings.Contains(msg, "canceled after") {
		t.Fatalf("info.error = %q", msg)
	}
}
