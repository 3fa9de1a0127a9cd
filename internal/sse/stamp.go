package sse

import "time"

// The types most callers use: stamps are durations (a read's time since some
// start), or any other integer a caller counts in, such as a line number.
type (
	Line     = LineOf[time.Duration]
	Splitter = SplitterOf[time.Duration]
	Event    = EventOf[time.Duration]
	Parser   = ParserOf[time.Duration]
)
