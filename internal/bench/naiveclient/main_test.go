package main

import (
	"testing"

	"ttftlab/internal/calibrate/clienttest"
)

// The comparison client must stamp every content chunk of a calibration
// stream, in order, on CLOCK_MONOTONIC (after the server's send stamps).
func TestCalibrateStampsEveryChunk(t *testing.T) {
	clienttest.StampsEveryChunk(t, stampArrivals)
}
