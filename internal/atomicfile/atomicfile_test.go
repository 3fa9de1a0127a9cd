package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.json")
	if err := Write(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("second, longer"), 0o640); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "second, longer" {
		t.Fatalf("content = %q", got)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 {
		t.Fatalf("mode = %v, want 0640", st.Mode().Perm())
	}
	assertOnlyFiles(t, dir, "out.json")
}

func TestWriteEmptyData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty")
	if err := Write(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		t.Fatalf("stat = %v, %v; want an empty file", st, err)
	}
}

func TestWriteMissingFolderNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "out.json")
	err := Write(path, []byte("x"), 0o644)
	if err == nil {
		t.Fatal("expected an error")
	}
	msg := err.Error()
	if !strings.Contains(msg, path) || !strings.Contains(msg, "exists") {
		t.Fatalf("error should name %s and suggest checking the folder: %v", path, msg)
	}
}

// A rename over a folder fails after the temporary file was written: the
// temporary file must be gone afterwards.
func TestWriteRemovesTempOnFailure(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.MkdirAll(filepath.Join(target, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := Write(target, []byte("data"), 0o644)
	if err == nil {
		t.Fatal("expected an error renaming over a folder")
	}
	if !strings.Contains(err.Error(), target) {
		t.Fatalf("error should name %s: %v", target, err)
	}
	assertOnlyFiles(t, dir, "target")
}

func TestAppendAddsAndCreates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	for _, line := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		if err := Append(path, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "{\"a\":1}\n{\"b\":2}\n" {
		t.Fatalf("content = %q", got)
	}
}

func TestAppendErrorNamesPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "log.jsonl")
	err := Append(path, []byte("x\n"))
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("want an error naming %s, got %v", path, err)
	}
}

func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(names, ",") {
		t.Fatalf("folder holds %v, want %v (a temporary file was left behind?)", got, names)
	}
}

// TestAppendFailureLeavesNoPartialLine: a write that fails half-way (the
// disk is full) is cut back, so the file still ends with a whole line.
func TestAppendFailureLeavesNoPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := Append(path, []byte("{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	defer func(w func(*os.File, []byte) (int, error)) { write = w }(write)
	write = func(f *os.File, p []byte) (int, error) {
		n, _ := f.Write(p[:len(p)/2])
		return n, syscall.ENOSPC
	}
	err := Append(path, []byte("{\"b\":2222222}\n"))
	if err == nil || !strings.Contains(err.Error(), "disk is full") || strings.Contains(err.Error(), "atomicfile") {
		t.Fatalf("err = %v, want the disk-full hint without a package name", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\"a\":1}\n" {
		t.Errorf("after a failed append the file holds %q", got)
	}
}
