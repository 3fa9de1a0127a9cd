package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/load"
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
	dirs, err := shardDirs(fs.Args())
	if err != nil {
		return err
	}
	folders := make([]load.ShardFolder, len(dirs))
	for i, d := range dirs {
		if folders[i], err = readShard(d); err != nil {
			return err
		}
	}
	m, err := load.Merge(folders)
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

// shardDirs are the shard folders the arguments stand for: a folder with
// a load.json is one; a folder without one stands for its shard-*
// folders, in the order of their numbers.
func shardDirs(args []string) ([]string, error) {
	var dirs []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("cannot open shard folder %s: %w", a, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%s is a file, not a shard folder", a)
		}
		if _, err := os.Stat(filepath.Join(a, "load.json")); err == nil {
			dirs = append(dirs, a)
			continue
		}
		shards := rundir.ShardDirs(a)
		if len(shards) == 0 {
			return nil, fmt.Errorf("%s holds neither a load.json nor shard-* folders with one: pass the shard folders of a run, or the folder `ttftlab load --shard` wrote them to (--out)", a)
		}
		dirs = append(dirs, shards...)
	}
	return dirs, nil
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

// print is the merge on the console: load's table of levels (calls,
// requests ok, ttft and first-sentence percentiles with their n, tok/s,
// goodput, SLO), under each level its shards and their start spread,
// then what the merge marked and the capacity.
func (c *mergeCmd) print(out string, m *load.Merged) {
	w := c.env.Out
	set := m.Doc.Settings
	fmt.Fprintf(w, "ttftlab merge: run %s, %d shards, server %s, %s levels %s\n", set.RunID, set.Shards, set.Server, set.Mode,
		joinLevels(set.Levels))
	var slos []string
	for _, s := range set.SLO {
		slos = append(slos, s.Text)
	}
	fmt.Fprintf(w, "SLO: %s\n", strings.Join(slos, ", "))
	mode := "at once"
	if set.Mode == "rate" {
		mode = "rate/s"
	}
	fmt.Fprintf(w, "\n%-8s %6s %12s  %-27s %-27s %9s %8s  %s\n", mode, "calls", "requests ok", "ttft p50/95/99", "1st sent p50/95/99",
		"tok/s", "goodput", "SLO")
	marked := false
	for _, l := range m.Doc.Levels {
		s := l.Summary
		goodput := "-"
		if l.Goodput != nil {
			goodput = fmt.Sprintf("%.0f%%", *l.Goodput*100)
		}
		verdict := "missed"
		switch {
		case l.Interrupted:
			verdict = "interrupted"
		case l.SLOMet:
			verdict = "met"
		}
		tok := 0.0
		if s.TokensPerS != nil {
			tok = *s.TokensPerS
		}
		fmt.Fprintf(w, "%-8s %6d %12s  %-27s %-27s %9.1f %7s  %s\n", fmt.Sprintf("%g", l.Level), s.Calls,
			fmt.Sprintf("%d/%d", s.OK, s.Requests), fmt3(s.TTFTMs, &marked), fmt3(s.FirstSentenceMs, &marked), tok, goodput, verdict)
		var parts []string
		for _, sh := range l.Shards {
			part := fmt.Sprintf("shard %d: %d requests", sh.Shard, sh.Requests)
			if sh.Host != "" {
				part = fmt.Sprintf("shard %d on %s: %d requests", sh.Shard, sh.Host, sh.Requests)
			}
			if sh.Failed > 0 {
				part += fmt.Sprintf(" (%d failed)", sh.Failed)
			}
			parts = append(parts, part)
		}
		spread := "start spread unknown (a shard has no start on record)"
		if l.StartSpreadMs != nil {
			spread = fmt.Sprintf("start spread %s ms", msText(*l.StartSpreadMs))
		}
		fmt.Fprintf(w, "  %s; %s\n", strings.Join(parts, ", "), spread)
		for _, v := range l.SLO {
			value := "no value: the percentile falls on a failed or missing request"
			if v.ValueMs != nil {
				value = msText(*v.ValueMs) + " ms"
			}
			fmt.Fprintf(w, "  %s p%g %s (limit %g ms, n=%d)\n", v.Metric, v.Percentile, value, v.LimitMs, v.N)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "calls: the calls that ran; requests ok: of their requests (one per turn), those that ended without an error.")
	fmt.Fprintln(w, "ttft: p50/p95/p99 over the requests with a first token; 1st sent: over those with a complete first")
	fmt.Fprintln(w, "sentence (n: how many), over every shard's requests. The SLO and goodput count a failed request as infinitely late.")
	if marked {
		fmt.Fprintln(w, "*: the sample is too small for this percentile (a p95 needs 20 requests, a p99 100): it is the")
		fmt.Fprintln(w, "  largest value or near it, not the tail it names.")
	}
	for _, n := range m.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w, capacityLine(m.Doc))
	fmt.Fprintf(w, "artifacts in %s: load.json, requests.jsonl, requests.csv, server.jsonl; ttftlab report %s draws it\n", out, out)
}

// fmt3 is load.lua's fmt3: a distribution's p50/p95/p99 and its n, a
// percentile its n cannot support marked "*" (and marked set).
func fmt3(d artifact.Dist, marked *bool) string {
	if d.N == 0 || d.P50 == nil || d.P95 == nil || d.P99 == nil {
		return fmt.Sprintf("%-20s %-6s", "      -", "(n=0)")
	}
	var cells []string
	for i, p := range []*float64{d.P50, d.P95, d.P99} {
		pct := []float64{50, 95, 99}[i]
		mark := ""
		if float64(d.N) < 100/(100-pct)-1e-9 {
			mark, *marked = "*", true
		}
		cells = append(cells, fmt.Sprintf("%6s", fmt.Sprintf("%.0f", *p)+mark))
	}
	return fmt.Sprintf("%s %-6s", strings.Join(cells, "/"), fmt.Sprintf("(n=%d)", d.N))
}

// msText is a time as load's console writes it: one decimal under 10 ms.
func msText(x float64) string {
	if x < 10 && x > -10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

func joinLevels(levels []float64) string {
	var s []string
	for _, l := range levels {
		s = append(s, fmt.Sprintf("%g", l))
	}
	return strings.Join(s, ",")
}

// capacityLine is load.lua's capacity line for the merged levels.
func capacityLine(doc artifact.Load) string {
	unit := func(level float64) string {
		switch {
		case doc.Settings.Mode == "rate":
			return " calls/s"
		case level == 1:
			return " call at once"
		}
		return " calls at once"
	}
	c := doc.Capacity
	if c == nil {
		if len(doc.Levels) == 0 {
			return "capacity: none: no level was merged"
		}
		first := doc.Levels[0]
		why := "misses the SLO"
		if first.Summary.Requests > 0 && first.Summary.Failed == first.Summary.Requests {
			why = "failed every request"
		}
		return fmt.Sprintf("capacity: none: already %g%s %s", first.Level, unit(first.Level), why)
	}
	line := fmt.Sprintf("capacity: %g%s", c.Level, unit(c.Level))
	for _, l := range doc.Levels {
		if l.Level == c.Level && len(l.SLO) > 0 && l.SLO[0].ValueMs != nil {
			s := l.SLO[0]
			line += fmt.Sprintf(" (%s p%g %.0f ms <= %g ms)", s.Metric, s.Percentile, *s.ValueMs, s.LimitMs)
		}
	}
	if c.Next == nil {
		return line + "; every level held: try higher ones"
	}
	if len(c.Next.SLO) > 0 {
		a := c.Next.SLO[0]
		if a.ValueMs != nil {
			return line + fmt.Sprintf("; at %g: %.0f ms", c.Next.Level, *a.ValueMs)
		}
		why := fmt.Sprintf("%d of %d without the figure", a.Missing, a.N)
		if a.Failed > 0 {
			why = fmt.Sprintf("%d of %d failed", a.Failed, a.N)
		}
		return line + fmt.Sprintf("; at %g: no value: %s", c.Next.Level, why)
	}
	return line
}
