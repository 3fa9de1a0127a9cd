package runtime

import (
	"encoding/json"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// loadLevel is load_level(settings, level, [opts]) -> record: the record
// of one level of `ttftlab load` (load.Level, as load.json holds it) made
// from the rows of the last stream_many call, which ran the level, with
// the trend its over-saturation check ended it on, if any. opts:
// due_unix_ms (a shard's due time), tts_cpu_ms (the default speech
// engine's CPU over the level).
func (vm *VM) loadLevel(L *lua.LState) int {
	data, err := vm.json.Encode(L.CheckTable(1), false)
	if err != nil {
		L.ArgError(1, "settings: "+err.Error())
	}
	var set artifact.LoadSettings
	if err := json.Unmarshal(data, &set); err != nil {
		L.ArgError(1, "settings are not load.json's: "+err.Error())
	}
	level := float64(L.CheckNumber(2))
	u := vm.lastMany
	if u == nil {
		L.RaiseError("load_level: no stream_many has run: the level's record is made from its rows")
	}
	elapsed := msOf(u.elapsed)
	x := load.LevelExtras{StartedUnixMs: artifact.Num(unixMs(u.begin)), DurationMs: &elapsed, Client: clientUse(u.use0, u.use1, u.elapsed),
		OverSaturated: u.over}
	if opts, ok := L.Get(3).(*lua.LTable); ok {
		num := func(name string) *float64 {
			v := opts.RawGetString(name)
			if v == lua.LNil {
				return nil
			}
			n, ok := v.(lua.LNumber)
			if !ok {
				L.RaiseError("load_level: opts.%s must be a number, got %s", name, v.Type())
			}
			return artifact.Num(float64(n))
		}
		x.DueUnixMs, x.TTSCPUMs = num("due_unix_ms"), num("tts_cpu_ms")
	} else if L.Get(3) != lua.LNil {
		L.ArgError(3, "want a table of options")
	}
	rows := make([]artifact.LoadRequest, len(u.rows))
	for i, r := range u.rows {
		r.Level = level
		rows[i] = r
	}
	rec, err := json.Marshal(load.Level(set, level, rows, x))
	if err != nil {
		L.RaiseError("load_level: %v", err)
	}
	v, err := vm.json.Decode(L, rec)
	if err != nil {
		L.RaiseError("load_level: %v", err)
	}
	L.Push(v)
	return 1
}
