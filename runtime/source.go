package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// embeddedRoot is the SCRIPT_DIR of a script run from an fs.FS. Names that
// start with it resolve inside that fs.FS, so
// dofile(SCRIPT_DIR .. "/x.lua") works for embedded scripts too.
const embeddedRoot = "(embedded)"

// source says where script files are read from: the disk (fsys nil) or an
// fs.FS such as the scripts embedded in the binary.
type source struct {
	fsys fs.FS
	// dir is the folder of the running file: an OS path on disk, a
	// slash-separated fs.FS path otherwise.
	dir string
}

// resolve turns a name given to dofile/loadfile into the path to read and
// the chunk name used in error messages. Absolute names always mean the
// disk.
func (s source) resolve(name string) (fsys fs.FS, p string) {
	if filepath.IsAbs(name) {
		return nil, name
	}
	if s.fsys == nil {
		return nil, filepath.Join(s.dir, name)
	}
	if rest, ok := strings.CutPrefix(name, embeddedRoot+"/"); ok {
		return s.fsys, path.Clean(rest)
	}
	return s.fsys, path.Join(s.dir, name)
}

// read loads a file named relative to the running file.
func (s source) read(name string) (data []byte, chunk string, into source, err error) {
	fsys, p := s.resolve(name)
	if fsys == nil {
		data, err = os.ReadFile(p)
		if err != nil {
			return nil, p, source{}, fmt.Errorf("cannot read %s: %w", p, err)
		}
		return data, p, source{dir: filepath.Dir(p)}, nil
	}
	data, err = fs.ReadFile(fsys, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, p, source{}, fmt.Errorf("cannot read %s: no such file among the embedded scripts", p)
		}
		return nil, p, source{}, fmt.Errorf("cannot read embedded %s: %w", p, err)
	}
	return data, p, source{fsys: fsys, dir: path.Dir(p)}, nil
}

// scriptDir is the SCRIPT_DIR value for a run from s.
func (s source) scriptDir() string {
	if s.fsys == nil {
		return s.dir
	}
	if s.dir == "." {
		return embeddedRoot
	}
	return embeddedRoot + "/" + s.dir
}
