package synth

import (
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
)

func TestMain(m *testing.M) { llamatest.Main(m) }
