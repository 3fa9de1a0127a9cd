package chart

import "image/color"

// Series colours. Each measure keeps its colour on every chart, and no two
// share one, so a reader (or a test counting marks in the SVG)
// can tell them apart. They are dark enough on white and stay apart when
// the page inverts them for dark mode.
var (
	TTFT          = rgb(0x1f, 0x77, 0xb4) // blue
	Total         = rgb(0xd6, 0x5f, 0x00) // orange
	Prompt        = rgb(0x2c, 0xa0, 0x2c) // green: the server's prompt_ms
	FirstSentence = rgb(0x94, 0x47, 0xbd) // purple
	Chunk         = rgb(0x4d, 0x4d, 0x4d) // dark grey: one streamed chunk
	Cut           = rgb(0xc6, 0x28, 0x28) // red: the client's cut or close
	Idle          = rgb(0x00, 0x89, 0x7b) // teal: the slot going idle
	Cached        = rgb(0x8c, 0xb8, 0xe0) // light blue: tokens reused from the cache
	Evaluated     = rgb(0x1f, 0x4e, 0x79) // dark blue: tokens evaluated
	Spoken        = rgb(0xb5, 0xd9, 0x9c) // light green: a sentence being spoken
	Stall         = rgb(0xf2, 0xa1, 0x9b) // light red: the speaker waiting
	Limit         = rgb(0xe0, 0x1e, 0x5a) // crimson: an SLO limit
	Capacity      = rgb(0x38, 0x8e, 0x3c) // dark green: the capacity found
	Queue         = rgb(0xa6, 0x76, 0x1d) // brown: waiting to be sent
	Transient     = rgb(0xa8, 0xa8, 0xa8) // grey: before a level's steady window
	P50           = rgb(0x3f, 0x51, 0xb5) // indigo
	P95           = rgb(0xe6, 0x9f, 0x00) // amber
	P99           = rgb(0x8b, 0x00, 0x00) // dark red
	Due           = rgb(0x80, 0x80, 0x00) // olive: requests a schedule (a trace) made due
	Began         = rgb(0xad, 0x14, 0x57) // magenta: requests as they began
	Shared        = rgb(0x4e, 0x34, 0x2e) // dark brown: a trace's own prefix sharing
	AfterCancel   = rgb(0xf4, 0x51, 0x1e) // deep orange: audio that still came after the client's cancel
	Grid          = rgb(0xe3, 0xe3, 0xe3)
)

// ABColors are the two runs of a comparison: A blue, B orange.
var ABColors = [2]color.RGBA{TTFT, Total}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 0xff} }
