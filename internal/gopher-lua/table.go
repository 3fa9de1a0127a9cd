package lua

const defaultArrayCap = 32

type lValueArraySorter struct {
	L      *LState
	Fn     *LFunction
	Values []LValue
}

func (lv lValueArraySorter) Len() int {
	return len(lv.Values)
}

func (lv lValueArraySorter) Swap(i, j int) {
	lv.Values[i], lv.Values[j] = lv.Values[j], lv.Values[i]
}

func (lv lValueArraySorter) Less(i, j int) bool {
	if lv.Fn != nil {
		lv.L.Push(lv.Fn)
		lv.L.Push(lv.Values[i])
		lv.L.Push(lv.Values[j])
		lv.L.Call(2, 1)
		return LVAsBool(lv.L.reg.Pop())
	}
	return lessThan(lv.L, lv.Values[i], lv.Values[j])
}

func newLTable(acap int, hcap int) *LTable {
	if acap < 0 {
		acap = 0
	}
	if hcap < 0 {
		hcap = 0
	}
	tb := &LTable{}
	tb.Metatable = LNil
	if acap != 0 {
		tb.array = make([]LValue, 0, acap)
	}
	switch {
	case hcap > smallMax:
		tb.strdict = make(map[string]LValue, hcap)
	case hcap != 0:
		tb.small = make([]smallEntry, 0, hcap)
	}
	return tb
}

// smallEntry is a string key and its value in a table's small list.
//
// A table's string keys stay in a list, in the order they were first set,
// until it has more than smallMax of them (cleared ones included); the
// list then moves to strdict and keys, as upstream keeps every string key.
// A list of n keys costs 32 bytes a key; strdict costs a Go map (about
// 300 bytes for up to 8 keys, 1 KB past 14) plus a boxed copy of each key
// in keys. Looking a key up reads the list through, as Go's own map does
// for up to 8 string keys. A cleared key keeps its place with a nil value,
// so a traversal that clears fields goes on past it, and setting the key
// again puts it back in its place. next() walks the array part, then the
// list, then keys.
type smallEntry struct {
	key   string
	value LValue
}

// smallMax is the most string keys a table keeps in its small list.
const smallMax = 32

// smallIndex is the place of key in the small list, or -1.
func (tb *LTable) smallIndex(key string) int {
	for i := range tb.small {
		if sameKey(tb.small[i].key, key) {
			return i
		}
	}
	return -1
}

// sameKey is k == key, comparing the lengths and the last bytes first:
// keys of one length often differ only at their end ("field_10",
// "field_11"), and a whole comparison of each costs a call.
func sameKey(k, key string) bool {
	n := len(key)
	return len(k) == n && (n == 0 || k[n-1] == key[n-1]) && k == key
}

// spill moves the small list's keys that have a value to strdict and
// keys, in their order, when the list is full.
func (tb *LTable) spill() {
	small := tb.small
	tb.small = nil
	tb.strdict = make(map[string]LValue, 2*len(small))
	for _, e := range small {
		if e.value != LNil {
			tb.setStrdict(e.key, e.value)
		}
	}
}

// Len returns length of this LTable without using __len.
func (tb *LTable) Len() int {
	if tb.array == nil {
		return 0
	}
	var prev LValue = LNil
	for i := len(tb.array) - 1; i >= 0; i-- {
		v := tb.array[i]
		if prev == LNil && v != LNil {
			return i + 1
		}
		prev = v
	}
	return 0
}

// Append appends a given LValue to this LTable.
func (tb *LTable) Append(value LValue) {
	if value == LNil {
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if len(tb.array) == 0 || tb.array[len(tb.array)-1] != LNil {
		tb.array = append(tb.array, value)
	} else {
		i := len(tb.array) - 2
		for ; i >= 0; i-- {
			if tb.array[i] != LNil {
				break
			}
		}
		tb.array[i+1] = value
	}
}

// Insert inserts a given LValue at position `i` in this table.
func (tb *LTable) Insert(i int, value LValue) {
	if tb.array == nil {
		tb.array = make([]LValue, 0, defaultArrayCap)
	}
	if i > len(tb.array) {
		tb.RawSetInt(i, value)
		return
	}
	if i <= 0 {
		tb.RawSet(LNumber(i), value)
		return
	}
	i -= 1
	tb.array = append(tb.array, LNil)
	copy(tb.array[i+1:], tb.array[i:])
	tb.array[i] = value
}

// MaxN returns a maximum number key that nil value does not exist before it.
func (tb *LTable) MaxN() int {
	if tb.array == nil {
		return 0
	}
	for i := len(tb.array) - 1; i >= 0; i-- {
		if tb.array[i] != LNil {
			return i + 1
		}
	}
	return 0
}

// Remove removes from this table the element at a given position.
func (tb *LTable) Remove(pos int) LValue {
	if tb.array == nil {
		return LNil
	}
	larray := len(tb.array)
	if larray == 0 {
		return LNil
	}
	i := pos - 1
	oldval := LNil
	switch {
	case i >= larray:
		// nothing to do
	case i == larray-1 || i < 0:
		oldval = tb.array[larray-1]
		tb.array = tb.array[:larray-1]
	default:
		oldval = tb.array[i]
		copy(tb.array[i:], tb.array[i+1:])
		tb.array[larray-1] = nil
		tb.array = tb.array[:larray-1]
	}
	return oldval
}

// RawSet sets a given LValue to a given index without the __newindex metamethod.
// It is recommended to use `RawSetString` or `RawSetInt` for performance
// if you already know the given LValue is a string or number.
func (tb *LTable) RawSet(key LValue, value LValue) {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				tb.array = make([]LValue, 0, defaultArrayCap)
			}
			index := int(v) - 1
			alen := len(tb.array)
			switch {
			case index == alen:
				tb.array = append(tb.array, value)
			case index > alen:
				for i := 0; i < (index - alen); i++ {
					tb.array = append(tb.array, LNil)
				}
				tb.array = append(tb.array, value)
			case index < alen:
				tb.array[index] = value
			}
			return
		}
	case LString:
		tb.RawSetString(string(v), value)
		return
	}

	tb.RawSetH(key, value)
}

// RawSetInt sets a given LValue at a position `key` without the __newindex metamethod.
func (tb *LTable) RawSetInt(key int, value LValue) {
	if key < 1 || key >= MaxArrayIndex {
		tb.RawSetH(LNumber(key), value)
		return
	}
	if tb.array == nil {
		tb.array = make([]LValue, 0, 32)
	}
	index := key - 1
	alen := len(tb.array)
	switch {
	case index == alen:
		tb.array = append(tb.array, value)
	case index > alen:
		for i := 0; i < (index - alen); i++ {
			tb.array = append(tb.array, LNil)
		}
		tb.array = append(tb.array, value)
	case index < alen:
		tb.array[index] = value
	}
}

// RawSetString sets a given LValue to a given string index without the __newindex metamethod.
func (tb *LTable) RawSetString(key string, value LValue) {
	if tb.strdict == nil {
		if i := tb.smallIndex(key); i >= 0 {
			tb.small[i].value = value
			return
		}
		if value == LNil {
			return
		}
		if len(tb.small) < smallMax {
			tb.small = append(tb.small, smallEntry{key, value})
			return
		}
		tb.spill()
	}
	tb.setStrdict(key, value)
}

// setStrdict is RawSetString in a table whose string keys are in strdict.
func (tb *LTable) setStrdict(key string, value LValue) {
	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		if _, ok := tb.strdict[key]; ok {
			tb.indexKeys() // the key stays in keys: from now on k2i tells
			delete(tb.strdict, key)
		}
	} else {
		if _, ok := tb.strdict[key]; ok {
			tb.strdict[key] = value
			return
		}
		tb.strdict[key] = value
		lkey := LString(key)
		if tb.k2i == nil {
			tb.keys = append(tb.keys, lkey) // new to strdict, so new to keys
		} else if _, ok := tb.k2i[lkey]; !ok {
			tb.k2i[lkey] = len(tb.keys)
			tb.keys = append(tb.keys, lkey)
		}
	}
}

// indexKeys makes k2i, the place of each key in keys, when it is not
// there yet. keys holds exactly the keys of strdict and dict until one is
// deleted (deleted keys stay in keys, so a traversal can go on past
// them); until then a new key is new to keys too, and k2i is needed only
// to look a key up in Next. So k2i is made when a key is first deleted,
// and for Next in a table with many keys.
func (tb *LTable) indexKeys() {
	if tb.k2i != nil {
		return
	}
	tb.k2i = make(map[LValue]int, len(tb.keys))
	for i, k := range tb.keys {
		tb.k2i[k] = i
	}
}

// keyIndexScan is the most keys Next looks through one by one for the
// place of a key rather than make k2i.
const keyIndexScan = 32

// keyIndex is the place of key in keys (0 when it is not there, as a
// lookup in k2i gives).
func (tb *LTable) keyIndex(key LValue) int {
	if tb.k2i == nil && len(tb.keys) > keyIndexScan {
		tb.indexKeys()
	}
	if tb.k2i != nil {
		return tb.k2i[key]
	}
	for i, k := range tb.keys {
		if k == key {
			return i
		}
	}
	return 0
}

// RawSetH sets a given LValue to a given index without the __newindex metamethod.
func (tb *LTable) RawSetH(key LValue, value LValue) {
	if s, ok := key.(LString); ok {
		tb.RawSetString(string(s), value)
		return
	}
	if tb.dict == nil {
		tb.dict = make(map[LValue]LValue, len(tb.strdict))
	}
	if value == LNil {
		// TODO tb.keys and tb.k2i should also be removed
		if _, ok := tb.dict[key]; ok {
			tb.indexKeys() // the key stays in keys: from now on k2i tells
			delete(tb.dict, key)
		}
	} else {
		if _, ok := tb.dict[key]; ok {
			tb.dict[key] = value
			return
		}
		tb.dict[key] = value
		if tb.k2i == nil {
			tb.keys = append(tb.keys, key) // new to dict, so new to keys (see indexKeys)
		} else if _, ok := tb.k2i[key]; !ok {
			tb.k2i[key] = len(tb.keys)
			tb.keys = append(tb.keys, key)
		}
	}
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGet(key LValue) LValue {
	switch v := key.(type) {
	case LNumber:
		if isArrayKey(v) {
			if tb.array == nil {
				return LNil
			}
			index := int(v) - 1
			if index >= len(tb.array) {
				return LNil
			}
			return tb.array[index]
		}
	case LString:
		return tb.RawGetString(string(v))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetInt returns an LValue at position `key` without __index metamethod.
func (tb *LTable) RawGetInt(key int) LValue {
	if tb.array == nil {
		return LNil
	}
	index := int(key) - 1
	if index >= len(tb.array) || index < 0 {
		return LNil
	}
	return tb.array[index]
}

// RawGet returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetH(key LValue) LValue {
	if s, sok := key.(LString); sok {
		return tb.RawGetString(string(s))
	}
	if tb.dict == nil {
		return LNil
	}
	if v, ok := tb.dict[key]; ok {
		return v
	}
	return LNil
}

// RawGetString returns an LValue associated with a given key without __index metamethod.
func (tb *LTable) RawGetString(key string) LValue {
	if tb.strdict == nil {
		for i := range tb.small {
			if sameKey(tb.small[i].key, key) {
				return tb.small[i].value
			}
		}
		return LNil
	}
	if v, vok := tb.strdict[string(key)]; vok {
		return v
	}
	return LNil
}

// ForEach iterates over this table of elements, yielding each in turn to a given function.
func (tb *LTable) ForEach(cb func(LValue, LValue)) {
	if tb.array != nil {
		for i, v := range tb.array {
			if v != LNil {
				cb(LNumber(i+1), v)
			}
		}
	}
	for _, e := range tb.small {
		if e.value != LNil {
			cb(LString(e.key), e.value)
		}
	}
	if tb.strdict != nil {
		for k, v := range tb.strdict {
			if v != LNil {
				cb(LString(k), v)
			}
		}
	}
	if tb.dict != nil {
		for k, v := range tb.dict {
			if v != LNil {
				cb(k, v)
			}
		}
	}
}

// This function is equivalent to lua_next ( http://www.lua.org/manual/5.1/manual.html#lua_next ).
func (tb *LTable) Next(key LValue) (LValue, LValue) {
	init := false
	if key == LNil {
		key = LNumber(0)
		init = true
	}

	if init || key != LNumber(0) {
		if kv, ok := key.(LNumber); ok && isInteger(kv) && int(kv) >= 0 && kv < LNumber(MaxArrayIndex) {
			index := int(kv)
			if tb.array != nil {
				for ; index < len(tb.array); index++ {
					if v := tb.array[index]; v != LNil {
						return LNumber(index + 1), v
					}
				}
			}
			if tb.array == nil || index == len(tb.array) {
				return tb.nextFrom(0, 0)
			}
		}
	}

	if s, ok := key.(LString); ok && tb.strdict == nil {
		if i := tb.smallIndex(string(s)); i >= 0 {
			return tb.nextFrom(i+1, 0)
		}
	}
	return tb.nextFrom(len(tb.small), tb.keyIndex(key)+1)
}

// nextFrom is the first key with a value from the small list's place si
// on, then from keys' place ki on.
func (tb *LTable) nextFrom(si, ki int) (LValue, LValue) {
	for ; si < len(tb.small); si++ {
		if e := tb.small[si]; e.value != LNil {
			return LString(e.key), e.value
		}
	}
	for ; ki < len(tb.keys); ki++ {
		key := tb.keys[ki]
		if v := tb.RawGetH(key); v != LNil {
			return key, v
		}
	}
	return LNil, LNil
}
