package runtime

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/load"
)

// searchNext is search_next(path, most) -> next | nil, capacity: the next
// level of a capacity search (load.NextSearchLevel) given the levels run
// so far, path[i] = {level = n, met = bool}; when the search is done, nil
// and the capacity (0 when no level held).
func searchNext(L *lua.LState) int {
	t := L.CheckTable(1)
	most := L.CheckInt(2)
	var path []load.SearchStep
	for i := 1; i <= t.Len(); i++ {
		step, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok {
			L.ArgError(1, "want an array of {level = n, met = bool}")
		}
		level, ok := step.RawGetString("level").(lua.LNumber)
		if !ok || float64(level) != float64(int(level)) || level < 1 {
			L.ArgError(1, "each step's level must be a whole number of 1 or more")
		}
		path = append(path, load.SearchStep{Level: int(level), Met: lua.LVAsBool(step.RawGetString("met"))})
	}
	next, done, capacity, err := load.NextSearchLevel(path, most)
	if err != nil {
		L.RaiseError("search_next: %v", err)
	}
	if done {
		L.Push(lua.LNil)
		L.Push(lua.LNumber(capacity))
		return 2
	}
	L.Push(lua.LNumber(next))
	return 1
}
