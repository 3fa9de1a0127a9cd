package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
)

// finishInterrupted completes OUT/load.json after a stopped run (a signal,
// or a file that could not be written: why says which): the level that
// was running gets its record from the rows it recorded, marked
// interrupted (load.FinishInterrupted) with the start and the client's
// cost of the last stream_many, the level's, so `ttftlab report` draws the
// folder. It says on stderr what it kept; a folder without load.json
// (stopped before the script wrote it) is left as it is.
func (c *loadCmd) finishInterrupted(_ context.Context, out, why string) error {
	path := filepath.Join(out, "load.json")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc artifact.Load
	if err := artifact.DecodeStrict(data, &doc); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	rows, err := loadRows(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		return err
	}
	added := load.FinishInterrupted(&doc, rows, c.stopped)
	if doc.Levels == nil {
		doc.Levels = []artifact.LoadLevel{}
	}
	werr := writeLoadJSON(path, &doc)
	if added {
		// The stopped level's row, as load prints a level, also when
		// load.json could not take it (the disk that stopped the run is
		// full): the console is then the only record of its figures.
		for _, line := range loadtext.InterruptedLines(doc.Levels[len(doc.Levels)-1]) {
			fmt.Fprintln(c.env.Out, line)
		}
	}
	if werr != nil {
		return werr
	}
	what := "no level had ended"
	if n := len(doc.Levels); n > 0 {
		what = fmt.Sprintf("%d level(s)", n)
		if added {
			what += fmt.Sprintf(", the last (%g) interrupted", doc.Levels[n-1].Level)
		}
	}
	fmt.Fprintf(c.env.Err, "ttftlab load: %s; %s keeps %s (ttftlab report %s draws it)\n", why, path, what, out)
	return nil
}

// writeFileAtomic writes a file atomically; a test puts a full disk
// in its place.
var writeFileAtomic = atomicfile.Write

// writeLoadJSON writes a load.json atomically, indented as load.lua's
// write_json does.
func writeLoadJSON(path string, doc *artifact.Load) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return writeFileAtomic(path, b.Bytes(), 0o644)
}

// loadRows reads requests.jsonl strictly (artifact.ReadLoadRequests),
// none when it does not exist.
func loadRows(path string) ([]artifact.LoadRequest, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := artifact.ReadLoadRequests(f)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return rows, nil
}
