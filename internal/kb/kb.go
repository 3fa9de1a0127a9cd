// Package kb holds the bundled knowledge base, the front-desk facts of a
// fictional family clinic with one short Markdown file per topic, and loads
// it or a folder of the user's own *.md files.
//
// The bundled files are deliberately tiny: all of them together in a system
// prompt, plus a short answer, must fit the 2048-token context of the small
// test model, whose tokenizer yields only about 1.4 characters per token.
package kb

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"ttftlab/scripts"
)

// Doc is one document: its file name (e.g. "01-hours.md") and its content.
type Doc struct {
	Name string
	Text string
}

var bom = []byte("\xef\xbb\xbf")

// Load returns the documents of dir sorted by file name: the top-level files
// ending in .md (subfolders are not searched). dir "" means the bundled
// documents. Text is the file content as is, minus a leading UTF-8 BOM.
// A file with nothing but white space in it is no document: it is left
// out, and warnings says so, one line per file.
func Load(dir string) (docs []Doc, warnings []string, err error) {
	if dir == "" {
		return load(scripts.KB, "the bundled knowledge base", func(name string) string { return name })
	}
	info, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("kb: folder %s does not exist: %w", dir, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("kb: cannot open folder %s: %w", dir, err)
	}
	if !info.IsDir() {
		return nil, nil, fmt.Errorf("kb: %s is a file, not a folder of *.md files", dir)
	}
	return load(os.DirFS(dir), "folder "+dir, func(name string) string { return filepath.Join(dir, name) })
}

// load reads the *.md files at the top of fsys. where names the source in
// errors; path turns a file name into what the user should look at.
func load(fsys fs.FS, where string, path func(string) string) ([]Doc, []string, error) {
	names, err := mdFiles(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("kb: cannot list %s: %w", where, err)
	}
	if len(names) == 0 {
		return nil, nil, fmt.Errorf("kb: no *.md files in %s (only files directly in it that end in .md count)", where)
	}
	docs := make([]Doc, 0, len(names))
	var warnings []string
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, fmt.Errorf("kb: cannot read %s: %w", path(name), err)
		}
		if off := invalidUTF8(data); off >= 0 {
			return nil, nil, fmt.Errorf("kb: %s is not valid UTF-8 at byte offset %d; save it as UTF-8", path(name), off)
		}
		text := string(bytes.TrimPrefix(data, bom))
		if strings.TrimSpace(text) == "" {
			warnings = append(warnings, fmt.Sprintf("kb: %s is empty, so it is not counted as a document", path(name)))
			continue
		}
		docs = append(docs, Doc{Name: name, Text: text})
	}
	if len(docs) == 0 {
		return nil, warnings, fmt.Errorf("kb: every *.md file in %s is empty (%d of them)", where, len(names))
	}
	return docs, warnings, nil
}

// mdFiles lists the names of the top-level *.md entries that are files,
// following symbolic links; a link that cannot be followed is kept so that
// reading it reports why.
func mdFiles(fsys fs.FS) ([]string, error) {
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".md") || e.IsDir() {
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if info, err := fs.Stat(fsys, e.Name()); err == nil && info.IsDir() {
				continue
			}
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names, nil
}

// invalidUTF8 returns the byte offset of the first invalid UTF-8 sequence in
// data, or -1 when data is valid.
func invalidUTF8(data []byte) int {
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			return off
		}
		off += size
	}
	return -1
}
