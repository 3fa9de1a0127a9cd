package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Numeric flags check their range when they are set, so a bad value is a
// usage error naming the flag (exit 2), never a panic or a silent default
// further down.

// intValue is an int flag limited to [min, max].
type intValue struct {
	p        *int
	min, max int
}

func (v *intValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.Itoa(*v.p)
}

func (v *intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("want a whole number")
	}
	if n < v.min || n > v.max {
		return fmt.Errorf("want %s", rangeText(float64(v.min), float64(v.max)))
	}
	*v.p = n
	return nil
}

// floatValue is a float flag limited to [min, max].
type floatValue struct {
	p        *float64
	min, max float64
}

func (v *floatValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v *floatValue) Set(s string) error {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return errors.New("want a number")
	}
	if f < v.min || f > v.max {
		return fmt.Errorf("want %s", rangeText(v.min, v.max))
	}
	*v.p = f
	return nil
}

// durationValue is a positive duration flag that explains its units.
type durationValue struct{ p *time.Duration }

func (v *durationValue) String() string {
	if v.p == nil {
		return "0s"
	}
	return v.p.String()
}

func (v *durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		if _, numErr := strconv.ParseFloat(s, 64); numErr == nil {
			return fmt.Errorf("%q has no unit: use one, e.g. %ss or %sms", s, s, s)
		}
		return errors.New("want a duration such as 90s, 2m or 500ms")
	}
	if d <= 0 {
		return errors.New("want a duration above zero")
	}
	*v.p = d
	return nil
}

func rangeText(min, max float64) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case max >= math.MaxInt32 && min == 0:
		return "a value of 0 or more"
	case max >= math.MaxInt32:
		return "a value of " + f(min) + " or more"
	}
	return "a value from " + f(min) + " to " + f(max)
}

// intVar registers an int flag limited to [min, max].
func (f *flagSet) intVar(p *int, name string, def, min, max int, usage string) {
	*p = def
	f.Var(&intValue{p: p, min: min, max: max}, name, usage)
}

// intFlag is intVar returning a new int.
func (f *flagSet) intFlag(name string, def, min, max int, usage string) *int {
	p := new(int)
	f.intVar(p, name, def, min, max, usage)
	return p
}

// floatVar registers a float flag limited to [min, max].
func (f *flagSet) floatVar(p *float64, name string, def, min, max float64, usage string) {
	*p = def
	f.Var(&floatValue{p: p, min: min, max: max}, name, usage)
}

// durationVar registers a positive duration flag.
func (f *flagSet) durationVar(p *time.Duration, name string, def time.Duration, usage string) {
	*p = def
	f.Var(&durationValue{p: p}, name, usage)
}

// noLimit is the upper bound of a flag without one.
const noLimit = math.MaxInt32
