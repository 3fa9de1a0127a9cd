package report

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// turnSection: voice calls of several turns, each turn number over the
// calls (load.json's by_turn): what the cache keeps from turn to turn and
// what TTFT costs. Nil for a run of one-turn calls.
func turnSection(l *rundir.Load) *section {
	turns := 0
	for _, lv := range l.Levels {
		turns = max(turns, len(lv.Summary.ByTurn))
	}
	if turns < 2 {
		return nil
	}
	s := sectionOf("turns", "Turn by turn",
		"Each turn of the voice calls, over the calls' requests of that turn that ended without an error: turn 1 is a cold prompt, later turns carry the call's history and may reuse it from the cache.",
		func() (figure, error) { return turnFigure(l) })
	return &s
}

var levelColors = []color.RGBA{chart.P50, chart.P95, chart.P99, chart.TTFT, chart.Total, chart.Prompt, chart.FirstSentence, chart.Queue}

func statP50(s *artifact.Stats) string {
	if s == nil {
		return "–"
	}
	return num(s.P50)
}

func turnFigure(l *rundir.Load) (figure, error) {
	p := chart.New("TTFT by turn of the call (p50)", "turn of the call", "ttft_ms p50 (ms)")
	tab := table{Caption: "by turn (p50 of each figure; n: requests)",
		Head: []string{"level", "turn", "n", "ttft_ms", "first_sentence_ms", "prompt_n", "cache_n"}}
	for i, lv := range l.Levels {
		var xys plotter.XYs
		for _, t := range lv.Summary.ByTurn {
			if t.TTFTMs != nil {
				xys = append(xys, plotter.XY{X: float64(t.Turn), Y: t.TTFTMs.P50})
			}
			tab.add(num(lv.Level), strconv.Itoa(t.Turn), strconv.Itoa(t.N), statP50(t.TTFTMs), statP50(t.FirstSentenceMs),
				statP50(t.PromptN), statP50(t.CacheN))
		}
		if len(xys) > 0 {
			if err := chart.LinePoints(p, fmt.Sprintf("level %s", num(lv.Level)), xys, levelColors[i%len(levelColors)]); err != nil {
				return figure{}, err
			}
		}
	}
	p.X.Tick.Marker = chart.IntegerTicks{}
	p.X.Min -= 0.3
	chart.FromZero(p)
	// A little room above the highest point, so no marker is cut at the top.
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(0))
}
