package streammany

import (
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/realtime"
)

func f64(x float64) *float64 { return &x }

// rtTurn is a turn measured: the caller's speech ended at 900 ms of its
// 1000 ms clip, the server said speech_stopped 300 ms later, its first
// audio came ear ms after the speech end.
func rtTurn(k int, ear float64) artifact.RealtimeTurn {
	return artifact.RealtimeTurn{Turn: k, AudioMs: 1000, SpeechEndMs: 900, SpeechStoppedMs: f64(1200), FirstAudioMs: f64(900 + ear),
		MouthToEarMs: f64(ear), AnswerAudioMs: 2500, UnderrunMs: f64(0), DoneMs: f64(3000), Status: "completed"}
}

// A session's turns become a row each: turn numbers, starts on the
// level's clock, the session's schedule on its first turn only, the
// turn's figures, the failure on the failed turn (a session that failed
// before any turn: one row for turn 1 without figures); and the level's
// record made of them (load.Level) counts each turn that has a mouth to
// ear in its distribution and judges an SLO on it over every turn, a
// failed one infinitely late.
func TestRealtimeRowsAndTheirLevel(t *testing.T) {
	s := &sessions{opts: manyOptions{}}
	called := time.Unix(1000, 0)
	starts := []time.Time{called.Add(100 * time.Millisecond), called.Add(3100 * time.Millisecond), called.Add(6100 * time.Millisecond)}
	barged := rtTurn(2, 500)
	barged.AudioAfterCancelMs = f64(400)
	ok := &session{called: called, res: &realtime.Result{Turns: []artifact.RealtimeTurn{rtTurn(1, 400), barged, rtTurn(3, 600)}, TurnStarts: starts}}
	timedOut := rtTurn(2, 0)
	timedOut.FirstAudioMs, timedOut.MouthToEarMs, timedOut.DoneMs, timedOut.AnswerAudioMs = nil, nil, nil, 0
	partial := &realtime.Result{Turns: []artifact.RealtimeTurn{rtTurn(1, 700), timedOut}, TurnStarts: starts[:2]}
	failed := &session{called: called, err: &realtime.Error{Kind: realtime.KindTimeout, Msg: "no response.done within 30s", Partial: partial}}
	refused := &session{called: called, err: &realtime.Error{Kind: realtime.KindAuth, Status: 401, Msg: "the upgrade was refused: 401"}}

	var rows []artifact.LoadRequest
	for i, c := range []struct {
		ss   *session
		want int
	}{{ok, 3}, {failed, 2}, {refused, 1}} {
		r := load.Result{Index: i + 1, Call: i + 1, Turn: 1, Scheduled: 10 * time.Millisecond, Admitted: 10 * time.Millisecond,
			Began: 12 * time.Millisecond, Start: 12 * time.Millisecond, End: 7 * time.Second, Err: c.ss.err}
		got := s.realtimeRows(r, c.ss)
		if len(got) != c.want {
			t.Fatalf("session %d: %d rows, want %d", i+1, len(got), c.want)
		}
		for k, row := range got {
			lr := artifact.LoadRequest{Call: r.Call, Turn: row.turn, Request: row.Request}
			s.rows = append(s.rows, lr)
			rows = append(rows, lr)
			if row.turn != k+1 || row.Index != len(rows) {
				t.Errorf("session %d row %d: turn %d index %d", i+1, k+1, row.turn, row.Index)
			}
			if (k == 0) != (row.ScheduledMs != nil) || (k == 0) != (row.QueueMs != nil) {
				t.Errorf("session %d turn %d: scheduled %v queue %v, want them on the first turn only", i+1, k+1, row.ScheduledMs, row.QueueMs)
			}
			if k < len(starts) && c.ss != refused {
				if want := 12 + float64(starts[k].Sub(called))/1e6; row.StartMs == nil || *row.StartMs != want {
					t.Errorf("session %d turn %d: start_ms %v, want %g", i+1, k+1, row.StartMs, want)
				}
			}
			last := k == len(got)-1
			if (c.ss.err != nil && last) != (row.ErrorKind != nil) {
				t.Errorf("session %d turn %d: error %v", i+1, k+1, row.ErrorKind)
			}
		}
	}
	first := rows[0]
	switch {
	case first.MouthToEarMs == nil || *first.MouthToEarMs != 400, *first.FirstAudioMs != 1300, *first.CallerAudioMs != 1000, *first.AudioMs != 2500:
		t.Errorf("turn 1's figures: %+v", first.Request)
	case first.EndpointingMs == nil || *first.EndpointingMs != 300 || *first.TotalMs != 3000 || first.TTFTMs != nil:
		t.Errorf("turn 1's endpointing %v total %v ttft %v", first.EndpointingMs, first.TotalMs, first.TTFTMs)
	case rows[1].AudioAfterCancelMs == nil || *rows[1].AudioAfterCancelMs != 400:
		t.Errorf("the barged-in turn's audio after the cancel: %v", rows[1].AudioAfterCancelMs)
	case *rows[4].ErrorKind != realtime.KindTimeout || *rows[5].ErrorKind != realtime.KindAuth || rows[5].ErrorStatus != 401:
		t.Errorf("failures: %v, %v %d", *rows[4].ErrorKind, *rows[5].ErrorKind, rows[5].ErrorStatus)
	case rows[5].CallerAudioMs != nil || rows[5].MouthToEarMs != nil:
		t.Errorf("a session that failed before any turn has figures: %+v", rows[5].Request)
	}

	slo := artifact.SLO{Metric: "mouth_to_ear_ms", Percentile: 50, LimitMs: 700}
	set := artifact.LoadSettings{Mode: "concurrency", Turns: 3, SLO: []artifact.SLO{slo}}
	lv := load.Level(set, 2, rows, load.LevelExtras{})
	ear := lv.Summary.MouthToEarMs
	if ear == nil || ear.N != 4 {
		t.Fatalf("mouth_to_ear_ms %+v, want n = the 4 turns that heard an answer", ear)
	}
	if lv.Summary.Requests != 6 || lv.Summary.Failed != 2 || lv.Summary.Calls != 3 {
		t.Errorf("requests %d failed %d calls %d, want 6 turns, 2 failed, 3 sessions", lv.Summary.Requests, lv.Summary.Failed, lv.Summary.Calls)
	}
	v := lv.SLO[0]
	if v.N != 6 || v.Failed != 2 || v.ValueMs == nil || *v.ValueMs != 650 || !v.Met {
		t.Errorf("SLO verdict %+v, want over 6 turns, 2 failed, p50 650 ms (between 600 and 700): met", v)
	}
	if k := lv.Summary.Failures; len(k) != 2 {
		t.Errorf("failures by kind: %+v", k)
	}
}
