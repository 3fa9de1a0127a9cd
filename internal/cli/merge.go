package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
	"ttftlab/internal/rundir"
)

// mergeCmd is `ttftlab merge DIR... --out DIR [--no-report]`.
type mergeCmd struct{ env *env }

func newMerge(e *env) runner { return &mergeCmd{env: e} }

func (c *mergeCmd) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("DIR... --out DIR [--no-report]",
		"Merges the shard folders of one sharded load run (ttftlab load --shard I/N) into one load folder:\n"+
			"every request row of every shard, each level recomputed from the union's rows (percentiles, SLO\n"+
			"verdicts, goodput, capacity; never averaged), with each shard's start of it and the start spread.\n"+
			"A DIR holding shard-* folders and no load.json stands for those folders. The shards must be of\n"+
			"one run id and shard count, with the same settings, none missing. --out must not hold a\n"+
			"load.json already (a merge never mixes runs); it is created if missing. Exits 1 when every\n"+
			"request of a merged level failed, as load does. See docs/distributed.md.")
	out := fs.String("out", "", "the `folder` to write the merged run to")
	noReport := fs.Bool("no-report", false, "do not draw OUT/report.html")
	if err := fs.parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == 0:
		return fs.usageErrf("missing DIR: the shard folders of one run (or the folder holding their shard-* folders)")
	case *out == "":
		return fs.usageErrf("missing --out: the folder to write the merged run to")
	}
	if _, err := os.Stat(filepath.Join(*out, "load.json")); err == nil {
		return fs.usageErrf("--out %s already holds a load.json: give an empty or new folder", *out)
	}
	dirs, searched, err := shardDirs(fs.Args())
	if err != nil {
		return err
	}
	folders := make([]load.ShardFolder, len(dirs))
	for i, d := range dirs {
		if folders[i], err = readShard(d); err != nil {
			return err
		}
	}
	if err := sameTrace(folders); err != nil {
		return err
	}
	m, err := load.Merge(folders)
	var missing *load.MissingShardError
	if errors.As(err, &missing) {
		return fmt.Errorf("%w; %s", err, whereLooked(fs.Args(), searched))
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return fmt.Errorf("cannot create output folder %s (--out): %w", *out, err)
	}
	if err := writeMerge(*out, dirs, m); err != nil {
		return err
	}
	c.print(*out, m)
	if !*noReport {
		if err := c.env.writeReport(ctx, *out, ""); err != nil {
			return err
		}
	}
	// The exit code load's would be for the same rows: 1 when every
	// request of a level failed.
	return allFailed(*out)
}

// sameTrace refuses shards that replayed different traces (their
// settings.trace.sha256 differ, or some replayed one and some none). Shards
// that replayed the same trace may have read it from different paths, each
// on its own machine: the merge records the first shard's.
func sameTrace(folders []load.ShardFolder) error {
	if len(folders) == 0 {
		return nil
	}
	first := folders[0].Doc.Settings.Trace
	for i := range folders[1:] {
		f := &folders[1+i]
		tr := f.Doc.Settings.Trace
		switch {
		case (first == nil) != (tr == nil):
			with, without := folders[0].Name, f.Name
			if first == nil {
				with, without = without, with
			}
			return fmt.Errorf("the shards replayed different traces: %s replayed one (settings.trace), %s none", with, without)
		case first != nil && tr.SHA256 != first.SHA256:
			return fmt.Errorf("the shards replayed different traces: %s replayed %s (sha256 %s), %s replayed %s (sha256 %s)",
				folders[0].Name, first.File, first.SHA256, f.Name, tr.File, tr.SHA256)
		case first != nil:
			same := *tr
			same.File = first.File
			f.Doc.Settings.Trace = &same
		}
	}
	return nil
}

// shardDirs are the shard folders the arguments stand for: a folder with
// a load.json is one; a folder without one stands for its shard-*
// folders, in the order of their numbers.
// searched are the arguments that stood for their shard-* folders.
func shardDirs(args []string) (dirs, searched []string, err error) {
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open shard folder %s: %w", a, err)
		}
		if !st.IsDir() {
			return nil, nil, fmt.Errorf("%s is a file, not a shard folder", a)
		}
		if _, err := os.Stat(filepath.Join(a, "load.json")); err == nil {
			dirs = append(dirs, a)
			continue
		}
		shards := rundir.ShardDirs(a)
		if len(shards) == 0 {
			return nil, nil, fmt.Errorf("%s holds neither a load.json nor shard-* folders with one: pass the shard folders of a run, or the folder `ttftlab load --shard` wrote them to (--out)", a)
		}
		dirs = append(dirs, shards...)
		searched = append(searched, a)
	}
	return dirs, searched, nil
}

// whereLooked says where merge looked for the shards: the folders given,
// and the shard-* folders of those that held no load.json.
func whereLooked(args, searched []string) string {
	msg := "looked in " + strings.Join(args, ", ")
	if len(searched) > 0 {
		msg += " (the shard-* folders of " + strings.Join(searched, ", ") + ")"
	}
	return msg + ": pass every shard's folder, or copy the missing shard's folder (its --out/shard-I) beside the others"
}

// readShard reads a shard folder's load.json and requests.jsonl, both
// strictly.
func readShard(dir string) (load.ShardFolder, error) {
	f := load.ShardFolder{Name: dir}
	path := filepath.Join(dir, "load.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("%s is no load folder: %w", dir, err)
	}
	if err := artifact.DecodeStrict(data, &f.Doc); err != nil {
		return f, fmt.Errorf("reading %s: %w", path, err)
	}
	f.Rows, err = loadRows(filepath.Join(dir, "requests.jsonl"))
	return f, err
}

// writeMerge writes the merged folder: requests.jsonl (every shard's rows
// as they were, in shard order), requests.csv (one header), shard 0's
// server.jsonl, then load.json, each file atomically.
func writeMerge(out string, dirs []string, m *load.Merged) error {
	ordered := make([]string, len(m.Order))
	for i, j := range m.Order {
		ordered[i] = dirs[j]
	}
	err := atomicfile.WriteStream(filepath.Join(out, "requests.jsonl"), 0o644, func(w io.Writer) error {
		for _, d := range ordered {
			if err := copyLines(w, filepath.Join(d, "requests.jsonl")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	csvs := make([][]byte, len(ordered))
	for i, d := range ordered {
		data, err := os.ReadFile(filepath.Join(d, "requests.csv"))
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		csvs[i] = data
	}
	merged, err := load.MergeCSV(ordered, csvs)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(out, "requests.csv"), merged, 0o644); err != nil {
		return err
	}
	server, err := os.ReadFile(filepath.Join(ordered[0], "server.jsonl"))
	switch {
	case err == nil:
		if err := atomicfile.Write(filepath.Join(out, "server.jsonl"), server, 0o644); err != nil {
			return err
		}
	case !os.IsNotExist(err):
		return err
	}
	return writeLoadJSON(filepath.Join(out, "load.json"), &m.Doc)
}

// copyLines copies a JSONL file as it is, ending it with a newline; a
// missing file has no rows.
func copyLines(w io.Writer, path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var last byte = '\n'
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return werr
			}
			last = buf[n-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if last != '\n' {
		_, err = w.Write([]byte{'\n'})
	}
	return err
}

// print is the merge on the console, as load prints a run: its table,
// the merge's notes and the capacity (loadtext.MergeLines).
func (c *mergeCmd) print(out string, m *load.Merged) {
	for _, line := range loadtext.MergeLines(m.Doc, m.Notes, out) {
		fmt.Fprintln(c.env.Out, line)
	}
}
