package load

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
)

// Round is one round of one level that the sweep asks its Runner to run:
// a level of a sweep, a level a search tries, or another round of a level
// the search confirms.
type Round struct {
	// Level is the calls at once, or the calls per second (settings.mode).
	Level float64
	// K is the level's place (from 0) among the run's levels: a shard's
	// due time counts from it.
	K int
	// Round counts the rounds of this level: 1 its first, more a search's
	// confirmation (whose rows are recorded, whose record is not the
	// level's: the level's row stays its first round's).
	Round int
	// Calls are this round's calls: settings.calls, or what a search's
	// budget leaves.
	Calls int
	// DueUnixMs is, in a sharded run, when the level is due on the wall
	// clock (ms since the Unix epoch): the runner starts it no earlier.
	// Nil otherwise.
	DueUnixMs *float64
	// OverSaturation is, in an open loop, the SLO whose lateness the
	// runner checks as each request ends (OverSaturation): when it keeps
	// rising no new call starts and RoundResult.Extras.OverSaturated says
	// why. Nil in a closed loop.
	OverSaturation *artifact.SLO
}

// RoundResult is what a round gave: its rows (every request it recorded,
// warm-up included, in the order they ended, tagged with the level) and
// what the rows do not hold (its start, duration, client use, the trend
// that ended it early, the speech engine's CPU). The sweep adds DueUnixMs
// and Interrupted.
type RoundResult struct {
	Rows   []artifact.LoadRequest
	Extras LevelExtras
}

// Runner runs the rounds of a load: it builds each due request (the
// experiment's request builder), streams it, records its row
// (requests.jsonl, requests.csv) and the server's view (server.jsonl),
// and shows progress. An error ends the run: ctx's (a stop) or a file
// that could not be written; the result then holds the rows recorded
// before it, which the sweep makes the interrupted level of.
type Runner interface {
	Run(ctx context.Context, r Round) (RoundResult, error)
}

// lateStartMs is how late after its due time a shard's level may start
// before the console says so.
const lateStartMs = 50

// Sweep runs the load that doc.Settings describe with r: each level of
// the settings in turn (stopping after a level whose every request
// failed), or with settings.search_max a capacity search (Search), each
// level's record made by Level and the capacity by CapacityOf or the
// search; doc.Model and doc.Server are the caller's. After each level
// (and before the first) it hands the whole record to save, which writes
// load.json; it prints the console (internal/loadtext) to out, dir being
// the run's folder its last lines name. On an error of the runner it
// records the level it was in as interrupted, saves, and returns the
// record with that error.
//
// What it prints, in order: the run's heading and the table's header;
// for each round a shard's due time, the round's late start, the level's
// lines and its over-saturation (a sweep: a level where every request
// failed ends it); then the legend, the capacity, a search's path, the
// artifacts and a shard's note on merging. What save receives: the
// record with no level and no capacity first (with a search,
// settings.levels empty: the search fills it in the order it runs
// levels); then after each round the levels so far (a search's with
// their pooled verdicts; the capacity still null); last the whole
// record, a search's levels sorted by level with the capacity and its
// path. A round's level record is the level's when it is its first
// round; a search's further rounds only add to its pooled verdict.
//
// Run until decided (settings.until_decided), each level (each level a
// search tries) gets further rounds of its calls, same level and K, until
// its record's verdicts are settled or the budget leaves no round
// (further); its record is then over every round (replaced after each,
// with its decision), each round prints one line (loadtext.RoundLine)
// and the level's lines follow its last, with loadtext.DecisionLines. A
// search decides on each level once, from all its rounds.
//
// A trace's replay (settings.mode "trace") is one level, settings.levels[0]
// (the replay's speed), in one round of settings.calls, with its SLO
// verdicts as any level's but no search, no further rounds, no
// over-saturation check (the replay plays every call) and no capacity
// (null).
//
// A stop (ctx done, or the runner's error) ends it: the round's rows, if
// it is a level's first round and has rows, become that level's record
// marked interrupted (with a search, its level joins settings.levels and
// the levels are sorted), the capacity is CapacityOf the levels, the
// record is saved and the interrupted level printed
// (loadtext.InterruptedLines); Sweep returns the runner's error, joined
// with save's if that failed too. A save that fails ends it as well: the
// round's level lines are printed (the console is then the only record of
// them) with the legend, or the whole end when it was the last save, and
// save's error returned; a failed first save prints nothing.
func Sweep(ctx context.Context, doc artifact.Load, r Runner, save func(artifact.Load) error, out io.Writer, dir string) (artifact.Load, error) {
	s := &sweep{ctx: ctx, doc: doc, r: r, save: save, out: out, table: loadtext.NewTable(doc.Settings),
		lateFromStart: map[int]bool{}}
	s.doc.Levels, s.doc.Capacity = []artifact.LoadLevel{}, nil
	if s.search() {
		s.doc.Settings.Levels = []float64{}
	}
	if err := save(s.doc); err != nil {
		return s.doc, err
	}
	s.print(loadtext.RunLines(s.doc.Settings)...)
	s.print(loadtext.Header(s.doc.Settings.Mode))
	var err error
	switch {
	case s.trace():
		err = s.runTrace()
	case s.search():
		err = s.runSearch()
	default:
		err = s.runLevels()
	}
	if err != nil {
		return s.doc, err
	}
	err = save(s.doc)
	s.print(loadtext.EndLines(s.doc, dir, s.table)...)
	return s.doc, err
}

// sweep is one Sweep's state.
type sweep struct {
	ctx   context.Context
	doc   artifact.Load
	r     Runner
	save  func(artifact.Load) error
	out   io.Writer
	table *loadtext.Table
	// lateFromStart[k]: a shard's level k started late because the
	// shard was ready only after its start: the first level so, and each
	// later one that started late while the one before it did too.
	lateFromStart map[int]bool
}

func (s *sweep) search() bool { return !s.trace() && s.doc.Settings.SearchMax > 0 }

// trace says whether the load replays a trace (settings.mode "trace"):
// one level, its speed, one round, no capacity.
func (s *sweep) trace() bool { return s.doc.Settings.Mode == "trace" }

func (s *sweep) print(lines ...string) {
	for _, l := range lines {
		fmt.Fprintln(s.out, l)
	}
}

// runLevels is a sweep of the settings' levels, in their order, until a
// level where every request failed; then the capacity.
func (s *sweep) runLevels() error {
	for k, level := range s.doc.Settings.Levels {
		rd := Round{Level: level, K: k, Round: 1, Calls: s.doc.Settings.Calls}
		var acc *rounds
		if s.until() {
			acc = &rounds{at: len(s.doc.Levels)}
		}
		var rec artifact.LoadLevel
		for rd.Calls > 0 {
			var err error
			if rec, _, err = s.round(rd, acc); err != nil {
				return err
			}
			if acc != nil {
				rd.Round, rd.Calls = rd.Round+1, s.further(acc)
			} else {
				rd.Calls = 0
			}
			if err := s.saved(); err != nil {
				return err
			}
		}
		if acc != nil {
			rec = s.doc.Levels[acc.at]
			s.print(s.table.Level(loadtext.Label(level, 1), rec)...)
			s.print(loadtext.DecisionLines(s.doc.Settings, rec)...)
		}
		if sum := rec.Summary; sum.Requests > 0 && sum.Failed == sum.Requests {
			s.print(loadtext.AllFailedLine())
			break
		}
	}
	s.doc.Capacity = capacityOf(s.doc.Settings, s.doc.Levels)
	return nil
}

// runTrace is a trace's replay: its one level (settings.levels[0], the
// speed) in one round of settings.calls, its SLO verdicts as any level's;
// no capacity (a replay plays one load, it does not look for the most).
func (s *sweep) runTrace() error {
	set := s.doc.Settings
	if len(set.Levels) != 1 {
		return fmt.Errorf("a trace is replayed at one speed, its one level: the settings have %d levels", len(set.Levels))
	}
	if _, _, err := s.round(Round{Level: set.Levels[0], Round: 1, Calls: set.Calls}, nil); err != nil {
		return err
	}
	if err := s.saved(); err != nil {
		return err
	}
	s.doc.Capacity = capacityOf(set, s.doc.Levels)
	return nil
}

// capacityOf is a load's capacity (CapacityOf its levels); none for a
// trace's replay.
func capacityOf(set artifact.LoadSettings, levels []artifact.LoadLevel) *artifact.Capacity {
	if set.Mode == "trace" {
		return nil
	}
	return CapacityOf(levels)
}

// saved saves the record after a round; when save fails the table ends
// there (its legend) and the error ends the sweep.
func (s *sweep) saved() error {
	if err := s.save(s.doc); err != nil {
		s.print(s.table.Legend()...)
		return err
	}
	return nil
}

// until says whether each level runs until decided.
func (s *sweep) until() bool { return !s.trace() && s.doc.Settings.UntilDecided != nil }

// further is the calls of the next round of a level run until decided,
// after the rounds acc holds, whose record the level's is: none when
// that record is settled or the budget leaves no further round (the
// record's decision then says why; else it is "running"). A budget of
// requests leaves a round what it has not spent, up to settings.calls,
// and no round whose requests would all be warm-up; a budget of time a
// round only when the rounds so far and one more as long as the last
// fit in it.
func (s *sweep) further(acc *rounds) int {
	set := s.doc.Settings
	rec := &s.doc.Levels[acc.at]
	ended := settled(*rec, s.search())
	calls := 0
	if ended == "" {
		ended = EndedBudget
		switch u := set.UntilDecided; {
		case u.BudgetRequests > 0:
			left := (u.BudgetRequests - len(acc.rows)) / max(set.Turns, 1)
			if c := min(set.Calls, left); c >= 1 && c*set.Turns > set.Warmup {
				calls, ended = c, EndedRunning
			}
		case acc.spentMs+acc.lastMs <= u.BudgetMs:
			calls, ended = set.Calls, EndedRunning
		}
	}
	rec.Decision = &artifact.LevelDecision{Rounds: acc.n, Requests: len(acc.rows), Decided: ended != EndedBudget && ended != EndedRunning,
		Ended: ended, Undecided: undecided(*rec)}
	return calls
}

// round runs one round: a shard's due time, the run, its late start, the
// level's record (kept as the level's in its first round) and its lines.
// Run until decided (acc the level's rounds so far), the level's record
// is over every round, replaced after each, and a round prints only its
// own line (loadtext.RoundLine): the caller prints the level's once its
// rounds end. It returns the round's own record (Level of its rows) and
// rows. A stop ends the sweep (stopped) with the runner's error.
func (s *sweep) round(rd Round, acc *rounds) (artifact.LoadLevel, []artifact.LoadRequest, error) {
	set := s.doc.Settings
	if err := s.ctx.Err(); err != nil {
		return artifact.LoadLevel{}, nil, s.stopped(rd, RoundResult{}, err, acc)
	}
	if set.Shard != nil {
		due := set.StartAtUnixMs + float64(rd.K)*(set.DurationMs+set.LevelGapMs)
		rd.DueUnixMs = artifact.Ms(due)
		s.print(loadtext.DueLine(rd.Level, due))
	}
	if set.Mode == "rate" && len(set.SLO) > 0 {
		slo := set.SLO[0]
		rd.OverSaturation = &slo
	}
	res, err := s.r.Run(s.ctx, rd)
	if err != nil {
		return artifact.LoadLevel{}, nil, s.stopped(rd, res, err, acc)
	}
	if rd.DueUnixMs != nil && res.Extras.StartedUnixMs != nil {
		if late := *res.Extras.StartedUnixMs - *rd.DueUnixMs; late > lateStartMs {
			s.lateFromStart[rd.K] = rd.K == 0 || s.lateFromStart[rd.K-1]
			s.print(loadtext.LateStartLine(late, rd.K, s.lateFromStart[rd.K]))
		}
	}
	rec := s.record(rd, res, false)
	level := rec
	if acc != nil {
		acc.add(res)
		level = s.pooled(rd, acc, false)
	}
	if rd.Round == 1 {
		s.doc.Levels = append(s.doc.Levels, level)
		if s.search() {
			s.doc.Settings.Levels = append(s.doc.Settings.Levels, rd.Level)
		}
	} else if acc != nil {
		s.doc.Levels[acc.at] = level
	}
	if acc != nil {
		s.print(loadtext.RoundLine(rd.Level, rd.Round, level))
	} else {
		s.print(s.table.Level(loadtext.Label(rd.Level, rd.Round), rec)...)
	}
	if over := rec.OverSaturated; over != nil {
		ended := 0
		for _, w := range over.Thirds {
			ended += w.N
		}
		s.print(loadtext.OverSaturatedLine(*over, ended, rd.Calls))
	}
	return rec, res.Rows, nil
}

// record is a round's level record (Level) from its rows.
func (s *sweep) record(rd Round, res RoundResult, interrupted bool) artifact.LoadLevel {
	x := res.Extras
	x.DueUnixMs, x.Interrupted = rd.DueUnixMs, interrupted
	return Level(s.doc.Settings, rd.Level, res.Rows, x)
}

// pooled is a level's record (Level) over every round acc holds.
func (s *sweep) pooled(rd Round, acc *rounds, interrupted bool) artifact.LoadLevel {
	x := acc.extras()
	x.DueUnixMs, x.Interrupted = rd.DueUnixMs, interrupted
	return Level(s.doc.Settings, rd.Level, acc.rows, x)
}

// stopped ends the sweep in round rd: its rows, in a level's first
// round, become the level's record marked interrupted; the capacity is
// the levels'; the record is saved and the level printed. It returns
// cause, joined with save's error.
//
// Run until decided (acc), the level's record is over every round, the
// stopped one's rows included, also when it stopped in a further round.
func (s *sweep) stopped(rd Round, res RoundResult, cause error, acc *rounds) error {
	var rec *artifact.LoadLevel
	switch {
	case acc != nil && rd.Round > 1:
		if len(res.Rows) > 0 {
			acc.add(res) // a stop before the round began adds none
		}
		l := s.pooled(rd, acc, true)
		l.Decision = &artifact.LevelDecision{Rounds: acc.n, Requests: len(acc.rows), Ended: EndedInterrupted, Undecided: undecided(l)}
		rec = &l
		s.doc.Levels[acc.at] = l
	case rd.Round == 1 && len(res.Rows) > 0:
		l := s.record(rd, res, true)
		if acc != nil {
			acc.add(res)
			l.Decision = &artifact.LevelDecision{Rounds: 1, Requests: len(acc.rows), Ended: EndedInterrupted, Undecided: undecided(l)}
		}
		rec = &l
		s.doc.Levels = append(s.doc.Levels, l)
		if s.search() {
			s.doc.Settings.Levels = append(s.doc.Settings.Levels, rd.Level)
		}
	}
	if s.search() {
		sortLevels(s.doc.Levels)
	}
	s.doc.Capacity = capacityOf(s.doc.Settings, s.doc.Levels)
	err := s.save(s.doc)
	if rec != nil {
		// Also when load.json could not take it: the console is then
		// the only record of its figures.
		s.print(loadtext.InterruptedLines(s.doc.Settings, *rec)...)
	}
	return errors.Join(cause, err)
}

// sortLevels sorts a search's level records by level, as its load.json
// keeps them.
func sortLevels(levels []artifact.LoadLevel) {
	sort.SliceStable(levels, func(i, j int) bool { return levels[i].Level < levels[j].Level })
}

// runSearch is the capacity search (Search): each round's verdict
// decides the next, each level's record keeps its pooled verdict over
// its rounds, each round is a step of the path with that verdict; then
// the capacity, the level above it and whether the intervals decided
// them.
func (s *sweep) runSearch() error {
	set := s.doc.Settings
	start := 1.0
	if set.Mode == "rate" && set.SearchStart > 0 {
		start = set.SearchStart
	}
	// Without a budget (0) no level gets more than its first round.
	search := Search{Rate: set.Mode == "rate", Start: start, Most: float64(set.SearchMax), Calls: set.Calls, Budget: set.SearchBudget}
	for _, slo := range set.SLO {
		search.SLO = append(search.SLO, SLOLimit{Percentile: slo.Percentile, LimitMs: slo.LimitMs})
	}
	var path []Step
	var steps []artifact.SearchStep
	at := map[float64]int{}     // a level's record in doc.Levels
	ran := map[float64]int{}    // a level's rounds so far
	inPath := map[float64]int{} // until decided: a level's one step in path
	var acc *rounds             // until decided: the level's rounds
	d, err := search.Next(nil)
	if err != nil {
		return fmt.Errorf("the capacity search: %w", err)
	}
	for !d.Done {
		level := d.Next
		ran[level]++
		k, ok := at[level]
		if !ok {
			k = len(s.doc.Levels)
		}
		if s.until() && ran[level] == 1 {
			acc = &rounds{at: k}
		}
		rec, rows, err := s.round(Round{Level: level, K: k, Round: ran[level], Calls: d.Calls}, acc)
		if err != nil {
			return err
		}
		if ran[level] == 1 {
			at[level] = k
		}
		round := Step{Level: level, Calls: d.Calls, Met: rec.SLOMet, Failed: rec.Summary.Failed,
			OverSaturated: rec.OverSaturated != nil, Values: sloValues(rows, set.SLO), CallOf: sloCalls(rows, set.SLO)}
		if i, ok := inPath[level]; ok {
			// Until decided the search sees a level once, as one step
			// of every round it ran: it decides on levels, and gives
			// none a round of its own to confirm.
			p := &path[i]
			p.Calls, p.Failed = p.Calls+round.Calls, p.Failed+round.Failed
			p.Met, p.OverSaturated = p.Met && round.Met, p.OverSaturated || round.OverSaturated
			for j := range p.Values {
				p.Values[j] = append(p.Values[j], round.Values[j]...)
				if p.CallOf != nil && round.CallOf != nil {
					// A round's call k is another call than an earlier
					// round's: its numbers move past theirs.
					own := append([]int(nil), p.CallOf[j]...)
					for _, c := range round.CallOf[j] {
						if c >= 0 {
							c += ran[level] << 24
						} else {
							c -= ran[level] << 24
						}
						own = append(own, c)
					}
					p.CallOf[j] = own
				}
			}
		} else {
			if s.until() {
				inPath[level] = len(path)
			}
			path = append(path, round)
		}
		step := artifact.SearchStep{Level: level, Round: ran[level], Calls: d.Calls, OverSaturated: rec.OverSaturated != nil}
		if d, err = search.Next(path); err != nil {
			return fmt.Errorf("the capacity search: %w", err)
		}
		// The step and its level's record get the level's verdict over
		// its rounds so far.
		for _, v := range d.Levels {
			if v.Level != level {
				continue
			}
			p := pooledRecord(v, set.SLO)
			p.Rounds = ran[level]
			s.doc.Levels[at[level]].Pooled = &p
			step.Met = v.Met
			if len(p.SLO) > 0 {
				first := p.SLO[0]
				ci := first.CIMs
				step.ValueMs, step.CIMs, step.Requests, step.Side = first.ValueMs, &ci, first.N, first.Side
			}
		}
		steps = append(steps, step)
		if acc != nil {
			if calls := s.further(acc); calls > 0 {
				d = Decision{Next: level, Calls: calls}
			} else {
				rec := s.doc.Levels[acc.at]
				s.print(s.table.Level(loadtext.Label(level, 1), rec)...)
				s.print(loadtext.DecisionLines(set, rec)...)
			}
		}
		if err := s.saved(); err != nil {
			return err
		}
	}
	// The capacity is the level found; above it the lowest level that did
	// not hold.
	c := &artifact.Capacity{Level: d.Capacity, Search: steps, Decided: &d.Decided}
	if hi := d.Between[1]; hi > 0 {
		if i, ok := at[hi]; ok {
			c.Next = &artifact.CapacityNext{Level: hi, SLO: s.doc.Levels[i].SLO}
		}
	}
	if !d.Decided {
		c.Between = []float64{d.Between[0]}
		if d.Between[1] > 0 {
			c.Between = append(c.Between, d.Between[1])
		}
	}
	sortLevels(s.doc.Levels)
	s.doc.Capacity = c
	return nil
}

// sloValues are a round's values of each SLO for the search: those of
// its requests (warm-up and the transient left out: Measured), a request
// that failed or never reached the figure +Inf; nil without SLOs.
func sloValues(rows []artifact.LoadRequest, slos []artifact.SLO) [][]float64 {
	if len(slos) == 0 {
		return nil
	}
	out := make([][]float64, len(slos))
	for i, slo := range slos {
		xs := []float64{}
		for _, r := range Measured(rows) {
			if v, ok, _ := value(r.Request, slo.Metric); ok {
				xs = append(xs, v)
			} else {
				xs = append(xs, math.Inf(1))
			}
		}
		out[i] = xs
	}
	return out
}

// pooledRecord is a level's verdict over every round a search ran of it,
// as load.json keeps it: each SLO's value and interval to the
// microsecond.
func pooledRecord(v LevelVerdict, slos []artifact.SLO) artifact.LevelPooled {
	p := artifact.LevelPooled{Rounds: v.Rounds, Calls: v.Calls, Failed: v.Failed, Met: v.Met, Decided: v.Decided,
		SLO: []artifact.PooledSLO{}}
	ms := func(x *float64) *float64 {
		if x == nil {
			return nil
		}
		return artifact.Ms(*x)
	}
	for i, slo := range slos {
		e := SLOEstimate{Side: Straddles}
		if i < len(v.SLO) {
			e = v.SLO[i]
		}
		p.SLO = append(p.SLO, artifact.PooledSLO{Metric: slo.Metric, Percentile: slo.Percentile, LimitMs: slo.LimitMs,
			ValueMs: ms(e.Value), CIMs: [2]*float64{ms(e.Lo), ms(e.Hi)}, N: e.N, Side: string(e.Side)})
	}
	return p
}
