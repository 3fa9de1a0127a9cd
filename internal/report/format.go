package report

import (
	"math"
	"strconv"
	"strings"
)

// num shows a number as the artifacts keep it: times to the microsecond
// (three decimals of a millisecond), no trailing zeros, no grouping, so
// the page's text is the file's value and copies back as a number.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "–"
	}
	r := math.Round(f*1000) / 1000
	if r == 0 {
		r = 0 // no "-0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// numP is num of *f, or a dash for a value the file left out.
// orNaN is a value that may be null (a server that does not give it),
// NaN when it is: shown as a dash, never drawn.
func orNaN(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

func numP(f *float64) string {
	if f == nil {
		return "–"
	}
	return num(*f)
}

// ratio shows b/a with two decimals, more for a small ratio so it keeps
// two digits ("1.23×", "0.034×"), or a dash when a is zero.
func ratio(a, b float64) string {
	r := b / a
	if a == 0 || math.IsNaN(r) || math.IsInf(r, 0) {
		return "–"
	}
	digits := 2
	if r > 0 && r < 0.1 {
		digits = 1 - int(math.Floor(math.Log10(r)))
	}
	return strconv.FormatFloat(r, 'f', digits, 64) + "×"
}

// unitOf names the unit of a field from its name, the artifacts' naming
// rule: *_ms are milliseconds, prompt_n and cache_n count tokens, and so
// on. Unknown names have no unit rather than a guessed one.
func unitOf(path string) string {
	cut := strings.LastIndexAny(path, ".]")
	name, parent := path[cut+1:], ""
	if cut > 0 {
		parent = path[:cut]
	}
	switch {
	case strings.HasSuffix(name, "_ms") || strings.HasSuffix(parent, "_ms"):
		return "ms"
	case strings.HasSuffix(name, "_per_s"):
		return strings.TrimSuffix(name, "_per_s") + "/s"
	case name == "prompt_n" || name == "cache_n" || name == "predicted_n" || strings.HasPrefix(name, "prompt_n_") ||
		strings.HasSuffix(name, "_tokens") || name == "tokens" || name == "n_ctx" || name == "max_tokens":
		return "tokens"
	case name == "cache_ram":
		return "MiB"
	case name == "goodput":
		return "share of requests"
	case name == "at_char":
		return "characters"
	}
	return ""
}

// value shows any field value: numbers by num, booleans as yes/no, a
// missing one (null) as a dash.
func value(v any) string {
	switch x := v.(type) {
	case nil:
		return "–"
	case float64:
		return num(x)
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case string:
		return x
	}
	return ""
}
