package runtime

import (
	"encoding/json"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// summary is stream_many's second result, over the results that are not
// warm-up: artifact.ManySummary as a Lua table (what load.json holds).
// Each distribution is over the requests that have its figure and says
// so (n, over); with n = 0 its percentiles are json_null. Failures are
// counted by kind with one message each.
func (m *many) summary() *lua.LTable {
	s := m.summaryRecord()
	data, err := json.Marshal(s)
	if err != nil {
		m.L.RaiseError("stream_many: summary: %v", err)
	}
	v, err := m.vm.json.Decode(m.L, data)
	if err != nil {
		m.L.RaiseError("stream_many: summary: %v", err)
	}
	return v.(*lua.LTable)
}

// summaryRecord is the summary of the requests' rows (load.SummaryOf,
// the figures each row records: the same summary as the level record
// made from them), over the run's time, with its start on the wall clock
// and what it cost the machine.
func (m *many) summaryRecord() artifact.LevelSummary {
	s := load.SummaryOf(m.rows, max(m.opts.plan.Turns, 1), msOf(m.elapsed))
	s.StartedUnixMs = artifact.Num(unixMs(m.begin))
	s.Client = clientUse(m.use0, m.use1, m.elapsed)
	return s
}

// manyUse is a stream_many call once its loop ended: its start, the
// machine's cost at its start and at its loop's end, the time between
// and its rows in the order they ended.
type manyUse struct {
	begin      time.Time
	use0, use1 usage
	elapsed    time.Duration
	rows       []artifact.LoadRequest
	// over is the trend that found the level over-saturated
	// (opts.over_saturation); nil when nothing did.
	over *artifact.LevelTrend
}

// LastManyUse is the last stream_many call whose loop ended (also one a
// stop ended): its start on the wall clock (ms since the Unix epoch) and
// what it cost the machine (nil when the process's CPU could not be
// read); ok false when none ended. What completes the record of a level
// a stop cut short.
func (vm *VM) LastManyUse() (startedUnixMs float64, client *artifact.ClientUse, ok bool) {
	u := vm.lastMany
	if u == nil {
		return 0, nil, false
	}
	return unixMs(u.begin), clientUse(u.use0, u.use1, u.elapsed), true
}
