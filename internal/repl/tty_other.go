//go:build !linux

package repl

import "os"

// IsTerminal reports whether f is a character device, the closest
// portable test (it also says yes for /dev/null).
func IsTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
