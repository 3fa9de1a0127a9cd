package load

import (
	"ttftlab/internal/artifact"
)

// FinishInterrupted completes the load.json of a run that was stopped
// (Ctrl-C) in the middle of a level: a level's record is written once the
// level ends, so the level that was running has only its rows in
// requests.jsonl. The rows of the first level of the settings that doc
// has no record of become that level's record (Level), marked
// interrupted, with what x says of it (its start, the client's cost); the
// requests the stop canceled count as failed, of kind canceled. The
// capacity is then the highest level whose SLOs held, an interrupted
// level never (CapacityOf). It reports whether it added a level; with no
// row of a missing level there is nothing to add and doc keeps its levels
// (its capacity is still set).
func FinishInterrupted(doc *artifact.Load, rows []artifact.LoadRequest, x LevelExtras) bool {
	done := map[float64]bool{}
	for _, l := range doc.Levels {
		done[l.Level] = true
	}
	added := false
	for _, level := range doc.Settings.Levels {
		if done[level] {
			continue
		}
		var mine []artifact.LoadRequest
		for _, r := range rows {
			if r.Level == level {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			x.Interrupted = true
			doc.Levels = append(doc.Levels, Level(doc.Settings, level, mine, x))
			added = true
		}
		break
	}
	doc.Capacity = CapacityOf(doc.Levels)
	return added
}
