package audio

import (
	"fmt"
	"testing"
)

// TestPlay on known times: sentence 1's audio comes at 100 and lasts 500
// (played 100-600); sentence 2's comes at 300, lasts 200 and waits for
// sentence 1 (600-800); sentence 3's comes at 900: 100 of silence, then
// it lasts 300 but its last byte comes at 1400, so it plays 900-1400 (200
// more of silence).
func TestPlay(t *testing.T) {
	p := Play([]Sentence{{FirstAudioMs: 100, AudioDoneMs: 120, AudioMs: 500}, {FirstAudioMs: 300, AudioDoneMs: 310, AudioMs: 200},
		{FirstAudioMs: 900, AudioDoneMs: 1400, AudioMs: 300}})
	if p.StartMs != 100 || p.EndMs != 1400 || p.UnderrunMs != 300 || p.Underruns != 2 {
		t.Fatalf("playback %+v, want 100-1400 with 300 ms in 2 underruns", p)
	}
	want := []Played{{StartMs: 100, EndMs: 600}, {StartMs: 600, EndMs: 800}, {StartMs: 900, EndMs: 1400, WaitMs: 100, StretchMs: 200}}
	if fmt.Sprint(p.Sentences) != fmt.Sprint(want) {
		t.Fatalf("sentences %+v, want %+v", p.Sentences, want)
	}
	if n := p.Sentences[2].Underruns(); n != 2 {
		t.Fatalf("sentence 3 has %d underruns, want 2", n)
	}
	if z := Play(nil); z.StartMs != 0 || z.EndMs != 0 || z.UnderrunMs != 0 || z.Underruns != 0 || len(z.Sentences) != 0 {
		t.Fatalf("no sentences play as %+v", z)
	}
}

// TestPlaceFirst: the first sentence waits for nothing, however early
// the end handed to it; its end is stretched by slow audio alone.
func TestPlaceFirst(t *testing.T) {
	got := Place(Sentence{FirstAudioMs: 50, AudioDoneMs: 400, AudioMs: 100}, 1000, true)
	if want := (Played{StartMs: 50, EndMs: 400, StretchMs: 250}); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if got.Underruns() != 1 {
		t.Fatalf("%d underruns, want 1", got.Underruns())
	}
}

// TestPlaybackAdd: an answer summed sentence by sentence from recorded
// ends (as check replays audio.json) is the answer Play makes, to the
// bit, the silences summed in the order they happened.
func TestPlaybackAdd(t *testing.T) {
	ss := []Sentence{{FirstAudioMs: 0.1, AudioDoneMs: 0.3, AudioMs: 0.1}, {FirstAudioMs: 0.6, AudioDoneMs: 0.9, AudioMs: 0.1},
		{FirstAudioMs: 0.7, AudioDoneMs: 1.3, AudioMs: 0.2}, {FirstAudioMs: 1.7, AudioDoneMs: 2.0, AudioMs: 0.1}}
	want := Play(ss)
	var got Playback
	prev := 0.0
	for i, s := range ss {
		p := Place(s, prev, i == 0)
		got.Add(p)
		prev = p.EndMs
	}
	if got.UnderrunMs != want.UnderrunMs || got.Underruns != want.Underruns {
		t.Fatalf("added %v ms in %d, Play %v ms in %d", got.UnderrunMs, got.Underruns, want.UnderrunMs, want.Underruns)
	}
	// One sum in order: wait, stretch, wait, stretch, ...
	sum, n := 0.0, 0
	for _, p := range want.Sentences {
		for _, x := range []float64{p.WaitMs, p.StretchMs} {
			if x > 0 {
				sum += x
				n++
			}
		}
	}
	if sum != want.UnderrunMs || n != want.Underruns || n != 6 {
		t.Fatalf("Play says %v ms in %d underruns, the silences in order sum to %v in %d (want 6)", want.UnderrunMs, want.Underruns, sum, n)
	}
}
