//go:build !linux

package wire

import "time"

// Supported is false: the raw-socket client is Linux-only.
const Supported = false

// ReaderCPU is 0: there are no reader threads off Linux.
func ReaderCPU() time.Duration { return 0 }

// ReaderWait is unknown: there are no reader threads off Linux.
func ReaderWait() (time.Duration, int64, bool) { return 0, 0, false }
