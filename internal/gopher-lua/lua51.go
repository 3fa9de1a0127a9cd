package lua

// ttftlab patch: number <-> string conversions and string.format as Lua
// 5.1 does them (lobject.c luaO_str2d, LUA_NUMBER_FMT "%.14g", lstrlib.c
// str_format and addquoted). See PATCHES.md.

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// numberToString is Lua 5.1's tostring of a number: C's "%.14g", with
// infinities and NaNs spelled as glibc prints them ("inf", "-inf", "nan",
// "-nan").
func numberToString(f float64) string {
	if f > -1e14 && f < 1e14 && f == float64(int64(f)) {
		if f == 0 && math.Signbit(f) {
			return "-0"
		}
		return strconv.FormatInt(int64(f), 10)
	}
	if s, ok := nonFinite(f); ok {
		return s
	}
	return strconv.FormatFloat(f, 'g', 14, 64)
}

// nonFinite spells an infinity or a NaN as glibc's printf does.
func nonFinite(f float64) (string, bool) {
	switch {
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	case math.IsNaN(f):
		if math.Signbit(f) {
			return "-nan", true
		}
		return "nan", true
	}
	return "", false
}

// isLuaSpace is C's isspace in the "C" locale.
func isLuaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// str2number is Lua 5.1's luaO_str2d: what strtod reads (decimal with
// optional exponent, hexadecimal "0x..", "inf", "nan"), surrounded by
// optional white space, and nothing else. A decimal literal with leading
// zeros is decimal ("017" is 17), as in Lua.
func str2number(s string) (LNumber, bool) {
	i, j := 0, len(s)
	for i < j && isLuaSpace(s[i]) {
		i++
	}
	for j > i && isLuaSpace(s[j-1]) {
		j--
	}
	s = s[i:j]
	if s == "" || strings.IndexByte(s, '_') >= 0 {
		return 0, false
	}
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 {
		return 0, false
	}
	if len(body) > 1 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		if strings.ContainsAny(body, "pP.") {
			v, err := strconv.ParseFloat(s, 64)
			return LNumber(v), err == nil
		}
		u, err := strconv.ParseUint(body[2:], 16, 64)
		if err != nil && !isRangeError(err) {
			return 0, false
		}
		v := float64(u)
		if isRangeError(err) {
			v = math.MaxUint64
		}
		if s[0] == '-' {
			v = -v
		}
		return LNumber(v), true
	}
	if len(body) == 0 || !(body[0] >= '0' && body[0] <= '9' || body[0] == '.' || body[0] == 'i' || body[0] == 'I' || body[0] == 'n' || body[0] == 'N') {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeError(err) {
		return 0, false
	}
	return LNumber(v), true
}

func isRangeError(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// luaFormat is Lua 5.1's string.format. Two leniencies stay from
// gopher-lua, as in later Lua versions: %s and %q take any value, through
// tostring (Lua 5.1 raises for anything but a string or a number).
func luaFormat(L *LState, format string) string {
	var b strings.Builder
	arg := 1
	top := L.GetTop()
	for i := 0; i < len(format); {
		c := format[i]
		i++
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i < len(format) && format[i] == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		arg++
		if arg > top {
			L.ArgError(arg, "no value")
		}
		// scanformat: flags, width (2 digits), precision (2 digits).
		start := i
		for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := format[start:i]
		ws := i
		for n := 0; n < 2 && i < len(format) && isDigit(format[i]); n++ {
			i++
		}
		width := format[ws:i]
		prec, hasPrec := "", false
		if i < len(format) && format[i] == '.' {
			hasPrec = true
			i++
			ps := i
			for n := 0; n < 2 && i < len(format) && isDigit(format[i]); n++ {
				i++
			}
			prec = format[ps:i]
		}
		if i < len(format) && isDigit(format[i]) {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i >= len(format) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		verb := format[i]
		i++
		spec := "%" + flags + width
		if hasPrec {
			spec += "." + prec
		}
		switch verb {
		case 'c':
			item := string([]byte{byte(int(L.CheckNumber(arg)))})
			b.WriteString(cString(padBytes(item, flags, width)))
		case 'd', 'i':
			b.WriteString(fmt.Sprintf(spec+"d", int64(L.CheckNumber(arg))))
		case 'o', 'x', 'X':
			b.WriteString(fmt.Sprintf(spec+string(verb), uint64(int64(L.CheckNumber(arg)))))
		case 'u':
			b.WriteString(fmt.Sprintf(spec+"d", uint64(int64(L.CheckNumber(arg)))))
		case 'e', 'E', 'f', 'F', 'g', 'G':
			f := float64(L.CheckNumber(arg))
			if s, ok := nonFinite(f); ok {
				if !math.Signbit(f) {
					if strings.IndexByte(flags, '+') >= 0 {
						s = "+" + s
					} else if strings.IndexByte(flags, ' ') >= 0 {
						s = " " + s
					}
				}
				if verb == 'E' || verb == 'F' || verb == 'G' {
					s = strings.ToUpper(s)
				}
				b.WriteString(padBytes(s, flags, width))
				break
			}
			if (verb == 'g' || verb == 'G') && !hasPrec {
				spec += ".6"
			}
			b.WriteString(fmt.Sprintf(spec+string(verb), f))
		case 'q':
			addQuoted(&b, L.ToStringMeta(L.Get(arg)).String())
		case 's':
			s := L.ToStringMeta(L.Get(arg)).String()
			if !hasPrec && len(s) >= 100 {
				b.WriteString(s)
				break
			}
			if hasPrec {
				if p, _ := strconv.Atoi(prec); p < len(s) {
					s = s[:p]
				}
			}
			b.WriteString(cString(padBytes(s, flags, width)))
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", verb)
		}
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// padBytes pads s with spaces to width bytes, on the right with the '-'
// flag, as C's printf counts (bytes, not characters).
func padBytes(s, flags, width string) string {
	w, _ := strconv.Atoi(width)
	if len(s) >= w {
		return s
	}
	pad := strings.Repeat(" ", w-len(s))
	if strings.IndexByte(flags, '-') >= 0 {
		return s + pad
	}
	return pad + s
}

// cString cuts s at its first NUL, as Lua 5.1 does with an item that
// sprintf formatted (it adds strlen(buff) bytes).
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

// addQuoted is Lua 5.1's %q: a double-quoted string that Lua reads back
// as the same bytes.
func addQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString("\\r")
		case 0:
			b.WriteString("\\000")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
