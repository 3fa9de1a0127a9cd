package rundir

// Band is one level's stretch of the run on the run-wide clock.
type Band struct {
	Level    float64
	From, To float64
}

// levelGapMs separates two levels stacked end to end when the file has
// no run-wide time: about one sampling period.
const levelGapMs = 250

// ServerTimeline is each server.jsonl sample's time since the whole run
// began, and each level's band on that clock. A sample's run_ms is used
// when the file has it; else the levels are laid end to end in the order
// they were sampled, each from where the one before ended (t_ms restarts
// with each level in files written before run_ms).
func (l *Load) ServerTimeline() (runMs []float64, bands []Band) {
	runMs = make([]float64, len(l.Server))
	offset, prevEnd := 0.0, 0.0
	for i, s := range l.Server {
		newLevel := i == 0 || s.Level != l.Server[i-1].Level
		switch {
		case s.RunMs != nil:
			runMs[i] = *s.RunMs
		case newLevel && i > 0 && s.TMs+offset < prevEnd:
			offset = prevEnd + levelGapMs - s.TMs
			fallthrough
		default:
			runMs[i] = s.TMs + offset
		}
		if newLevel {
			bands = append(bands, Band{Level: s.Level, From: runMs[i], To: runMs[i]})
		}
		b := &bands[len(bands)-1]
		b.To = max(b.To, runMs[i])
		prevEnd = max(prevEnd, runMs[i])
	}
	return runMs, bands
}
