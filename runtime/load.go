package runtime

import (
	"bytes"
	"errors"
	"fmt"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// load compiles a chunk. name is used as given (no "@"), so messages read
// "scripts/lab.lua:12: ...". A leading "#!" line is blanked, keeping line
// numbers.
func (vm *VM) load(data []byte, name string) (*lua.LFunction, error) {
	if bytes.HasPrefix(data, []byte("#")) {
		end := bytes.IndexByte(data, '\n')
		if end < 0 {
			end = len(data)
		}
		data = append([]byte{}, data[end:]...)
	}
	fn, err := vm.L.Load(bytes.NewReader(data), name)
	if err != nil {
		return nil, syntaxError(err, name, bytes.Count(data, []byte("\n"))+1)
	}
	return fn, nil
}

// syntaxError rewrites gopher-lua's "x.lua line:3(column:5) near ..."
// into the usual "x.lua:3: ..." form editors and users recognise. An
// error at the end of the input is reported on the last line.
func syntaxError(err error, name string, lastLine int) error {
	var ae *lua.ApiError
	if errors.As(err, &ae) && ae.Cause != nil {
		err = ae.Cause
	}
	var pe *parse.Error
	if errors.As(err, &pe) {
		if pe.Pos.Line == parse.EOF {
			return fmt.Errorf("%s:%d: %s at the end of the file (an unclosed block, string or bracket?)", name, lastLine, pe.Message)
		}
		return fmt.Errorf("%s:%d: %s near '%s' (column %d)", name, pe.Pos.Line, pe.Message, pe.Token, pe.Pos.Column)
	}
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s:%d: %s", name, ce.Line, ce.Message)
	}
	return fmt.Errorf("%s: %w", name, err)
}
