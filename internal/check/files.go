package check

import (
	"fmt"

	"ttftlab/internal/artifact"
)

// The lab's output files are decoded into their records in
// internal/artifact (the types the report reads too); the few rules a
// record's shape cannot say are here. Numbers stay float64 exactly as
// encoding/json parsed them, so values the lab copied compare exactly.

func (l *lab) loadBargein(data []byte) error {
	if err := artifact.Decode(data, &l.bargein); err != nil {
		return err
	}
	// The barge-in's verdict compares what each turn reused: both must
	// say, in every repetition.
	missing := func(at string, b artifact.Bargein) error {
		for _, t := range []struct {
			name string
			cost artifact.Tokens
		}{{"resumed", b.Resumed}, {"cold", b.Cold}} {
			if t.cost.CacheN == nil {
				return fmt.Errorf("%s%s.cache_n is missing", at, t.name)
			}
		}
		return nil
	}
	if err := missing("", l.bargein); err != nil {
		return err
	}
	for i, r := range l.bargein.Runs {
		if err := missing(fmt.Sprintf("runs[%d].", i), r); err != nil {
			return err
		}
	}
	return nil
}

func (l *lab) loadPrefix(data []byte) error {
	if err := artifact.Decode(data, &l.prefix); err != nil {
		return err
	}
	if len(l.prefix.Positions) < 2 {
		return fmt.Errorf("positions needs at least 2 places of the changing line")
	}
	for i, r := range l.prefix.Runs {
		if len(r.Positions) < 2 {
			return fmt.Errorf("runs[%d].positions needs at least 2 places of the changing line", i)
		}
	}
	return nil
}
