package streammany

import (
	"encoding/json"

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
	v, err := m.h.JSON.Decode(m.L, data)
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
