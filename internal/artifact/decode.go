package artifact

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Decode parses data into v (a pointer to one of this package's records)
// and holds it to the record's shape: every member without omitempty is
// present, every value has the member's JSON type, null only where the
// member is a pointer. Members the type does not know are allowed (a newer
// ttftlab may write more). The error lists the problems by path
// ("runs[2].ttft_ms is missing"), at most six of them.
func Decode(data []byte, v any) error {
	var raw any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("not valid JSON at byte %d: %w", se.Offset, err)
		}
		return fmt.Errorf("not valid JSON: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("not valid JSON: more than one value")
	}
	var s shape
	s.check(raw, reflect.TypeOf(v).Elem(), "")
	if err := s.err(); err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// shape collects what does not fit a record's type.
type shape struct{ problems []string }

const showProblems = 6

func (s *shape) add(path, format string, args ...any) {
	if path == "" {
		path = "the top level"
	}
	s.problems = append(s.problems, path+" "+fmt.Sprintf(format, args...))
}

func (s *shape) err() error {
	if len(s.problems) == 0 {
		return nil
	}
	msg := strings.Join(s.problems[:min(showProblems, len(s.problems))], "; ")
	if len(s.problems) > showProblems {
		msg += fmt.Sprintf("; and %d more", len(s.problems)-showProblems)
	}
	return errors.New(msg)
}

var rawMessage = reflect.TypeOf(json.RawMessage(nil))

// check holds the decoded value x at path to type t.
func (s *shape) check(x any, t reflect.Type, path string) {
	if t == rawMessage {
		return
	}
	if t.Kind() == reflect.Pointer {
		if x == nil {
			return
		}
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		if _, ok := x.(float64); !ok {
			s.add(path, "is %s, want a number", describe(x))
		}
	case reflect.String:
		if _, ok := x.(string); !ok {
			s.add(path, "is %s, want a string", describe(x))
		}
	case reflect.Bool:
		if _, ok := x.(bool); !ok {
			s.add(path, "is %s, want true or false", describe(x))
		}
	case reflect.Slice:
		if x == nil {
			return // null: no list (an unknown command line, say)
		}
		a, ok := x.([]any)
		if !ok {
			s.add(path, "is %s, want an array", describe(x))
			return
		}
		for i, e := range a {
			s.check(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		m, ok := x.(map[string]any)
		if !ok {
			s.add(path, "is %s, want an object", describe(x))
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			s.check(m[k], t.Elem(), path+"."+k)
		}
	case reflect.Struct:
		m, ok := x.(map[string]any)
		if !ok {
			s.add(path, "is %s, want an object", describe(x))
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			v, present := m[name]
			switch {
			case !present && !strings.Contains(opts, "omitempty"):
				s.add(p, "is missing")
			case present && v == nil && f.Type.Kind() != reflect.Pointer && f.Type.Kind() != reflect.Slice:
				s.add(p, "is null, want %s", want(f.Type))
			case present:
				s.check(v, f.Type, p)
			}
		}
	}
}

func want(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float64, reflect.Float32, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}

// describe names a decoded JSON value for a message.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return "the number " + strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		if len(x) > 30 {
			return "the string " + strconv.Quote(x[:30]) + "..."
		}
		return "the string " + strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	}
	return "an object"
}
