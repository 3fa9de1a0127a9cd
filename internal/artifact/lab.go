package artifact

import "encoding/json"

// The lab's artifacts, one type per file. The lab's Lua steps write them
// (scripts/0N_*.lua); check holds each file to its type with Decode, and
// rundir and report read them with the same types.
//
// Tags: a member without omitempty must be present (a pointer may be
// null); with omitempty it may be absent (older runs, optional parts).

// Lab file names.
const (
	ServerFile   = "server.json"
	HealthFile   = "health.json"
	PropsFile    = "props.json"
	SSEFile      = "sse_raw.txt"
	ChunksFile   = "chunks.jsonl"
	TTFTFile     = "ttft.json"
	PrefillFile  = "prefill.json"
	CacheFile    = "cache.json"
	SentenceFile = "sentence.json"
	CancelFile   = "cancel.json"
	BargeinFile  = "bargein.json"
	PrefixFile   = "prefix.json"
	ReportFile   = "report.json"
	StepsFile    = "steps.json"
)

// Health is health.json: the body of GET /health.
// ServerKind is server.json: the kind of server the lab measured and how
// that was told (servers.Detection), with what the kind offers.
type ServerKind struct {
	Kind     string          `json:"kind"`
	Evidence string          `json:"evidence"`
	Version  *string         `json:"version"`
	Health   string          `json:"health"`
	Caps     json.RawMessage `json:"caps,omitempty"`
}

type Health struct {
	Status string `json:"status"`
}

// Props is what the lab uses of props.json, the body of GET /props.
type Props struct {
	Settings struct {
		NCtx float64 `json:"n_ctx"`
	} `json:"default_generation_settings"`
	TotalSlots   float64 `json:"total_slots"`
	ModelPath    *string `json:"model_path,omitempty"`
	ChatTemplate *string `json:"chat_template,omitempty"`
	BuildInfo    string  `json:"build_info,omitempty"`
}

// Chunk is one line of chunks.jsonl (and of sentence.json's chunks): when
// a content chunk arrived, since t0, and its text.
type Chunk struct {
	TMs  float64 `json:"t_ms"`
	Text string  `json:"text"`
}

// TTFTRun is one of ttft.json's runs.
type TTFTRun struct {
	TTFTMs      float64 `json:"ttft_ms"`
	TotalMs     float64 `json:"total_ms"`
	Tokens      float64 `json:"tokens"`
	StampSource string  `json:"stamp_source,omitempty"`
}

// TTFT is ttft.json: five runs with the cache off and their medians;
// Discarded are runs set aside because one read carried the whole answer.
type TTFT struct {
	// Repeat is how many runs the step was asked for (the lab's
	// --repeat); 0 in folders written before it was recorded, which hold
	// 5.
	Repeat    int               `json:"repeat,omitempty"`
	Runs      []TTFTRun         `json:"runs"`
	TTFTP50   float64           `json:"ttft_p50"`
	TotalP50  float64           `json:"total_p50"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// PrefillRow is one row of prefill.json (an array of them, one row per
// count of documents). Its values at the top level are the first
// repetition's; Runs holds every repetition's.
type PrefillRow struct {
	Docs    float64 `json:"docs"`
	PromptN float64 `json:"prompt_n"`
	// PromptMs is the server's own prefill time (llama.cpp's
	// timings.prompt_ms); null for a server that does not say it.
	PromptMs *float64 `json:"prompt_ms"`
	// TokensFrom says where prompt_n came from: "timings" or "usage".
	TokensFrom string `json:"tokens_from,omitempty"`
	// ColdPrompt says how the request avoided the cache when the server
	// ignores cache_prompt false.
	ColdPrompt string  `json:"cold_prompt,omitempty"`
	Note       string  `json:"note,omitempty"`
	TTFTMs     float64 `json:"ttft_ms"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat), the same in every row; 0 in files written before the
	// step repeated, which hold one measurement and no Runs.
	Repeat int `json:"repeat,omitempty"`
	// Runs are this row's values in every valid repetition, in order (the
	// first is the row's own). One repetition measures every row in turn.
	Runs []PrefillRun `json:"runs,omitempty"`
	// Discarded are the repetitions set aside ({repetition, reason}), the
	// same in every row: a repetition is measured again whole.
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// PrefillRun is one repetition's measurement of a prefill row.
type PrefillRun struct {
	PromptN  float64  `json:"prompt_n"`
	PromptMs *float64 `json:"prompt_ms"`
	TTFTMs   float64  `json:"ttft_ms"`
}

// Repetitions are the row's values in every repetition (see
// repetitions).
func (r PrefillRow) Repetitions() []PrefillRun {
	return repetitions(r.Runs, func() PrefillRun { return PrefillRun{PromptN: r.PromptN, PromptMs: r.PromptMs, TTFTMs: r.TTFTMs} })
}

// repetitions is the one rule of a repeated step's file: its repetitions
// are its runs; a file written before the step repeated has none, and
// holds one measurement, its top level (made a run by top).
func repetitions[R any](runs []R, top func() R) []R {
	if len(runs) > 0 {
		return runs
	}
	return []R{top()}
}

// PrefillRepetitions are the rows as each repetition measured them: for
// repetition k, every row with its values of runs[k]. As many as the
// row with the fewest repetitions has; one, the rows as they are, in a
// file written before the step repeated.
func PrefillRepetitions(rows []PrefillRow) [][]PrefillRow {
	if len(rows) == 0 {
		return nil
	}
	n := len(rows[0].Repetitions())
	for _, r := range rows[1:] {
		n = min(n, len(r.Repetitions()))
	}
	out := make([][]PrefillRow, n)
	for k := range out {
		out[k] = make([]PrefillRow, len(rows))
		for i, r := range rows {
			run := r.Repetitions()[k]
			r.PromptN, r.PromptMs, r.TTFTMs = run.PromptN, run.PromptMs, run.TTFTMs
			r.Runs, r.Discarded = nil, nil
			out[k][i] = r
		}
	}
	return out
}

// Tokens is one timed request: the prompt tokens the server evaluated
// (prompt_n) and reused from its cache (cache_n), and the TTFT.
type Tokens struct {
	PromptN float64  `json:"prompt_n"`
	CacheN  *float64 `json:"cache_n,omitempty"`
	TTFTMs  float64  `json:"ttft_ms"`
}

// Cached is t's cache_n, 0 when the server did not say.
func (t Tokens) Cached() float64 {
	if t.CacheN == nil {
		return 0
	}
	return *t.CacheN
}

// CacheRun is one repetition of the cache step: the long prompt cold, then
// again, then with a changed first line.
type CacheRun struct {
	First         Tokens `json:"first"`
	Second        Tokens `json:"second"`
	ChangedPrefix Tokens `json:"changed_prefix"`
}

// Cache is cache.json: the long prompt twice, then with a changed first
// line, Repeat times (Runs); the top level holds the first repetition.
type Cache struct {
	First         Tokens `json:"first"`
	Second        Tokens `json:"second"`
	ChangedPrefix Tokens `json:"changed_prefix"`
	// Docs is how many of the KB's documents the prompt holds; 0 in
	// folders written before it was recorded (all of them).
	Docs float64 `json:"docs,omitempty"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat), Runs every valid one in order, Discarded the attempts
	// set aside ({repetition, reason}); all absent in folders written
	// before the step repeated (one measurement, the top level).
	Repeat    int               `json:"repeat,omitempty"`
	Runs      []CacheRun        `json:"runs,omitempty"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// Repetitions are the step's repetitions (see repetitions).
func (c Cache) Repetitions() []CacheRun {
	return repetitions(c.Runs, func() CacheRun { return CacheRun{First: c.First, Second: c.Second, ChangedPrefix: c.ChangedPrefix} })
}

// SpokenSentence is one sentence as a speaker would say it.
type SpokenSentence struct {
	Text    string  `json:"text,omitempty"`
	ReadyMs float64 `json:"ready_ms"`
	StartMs float64 `json:"start_ms"`
	EndMs   float64 `json:"end_ms"`
}

// Pacing is sentence.json's pacing: the answer played back at a fixed
// speaking rate.
type Pacing struct {
	CharsPerS     float64          `json:"chars_per_s,omitempty"`
	StartMs       float64          `json:"start_ms"`
	EndMs         float64          `json:"end_ms"`
	StallMs       float64          `json:"stall_ms"`
	Stalls        float64          `json:"stalls"`
	FirstClauseMs *float64         `json:"first_clause_ms,omitempty"`
	Sentences     []SpokenSentence `json:"sentences"`
}

// Sentence is sentence.json: the first repetition at the top level (its
// chunks for the report's timeline), every repetition in Runs.
type Sentence struct {
	TTFTMs          float64 `json:"ttft_ms"`
	FirstSentenceMs float64 `json:"first_sentence_ms"`
	TotalMs         float64 `json:"total_ms"`
	FirstSentence   string  `json:"first_sentence"`
	Text            string  `json:"text"`
	Chunks          []Chunk `json:"chunks,omitempty"`
	StampSource     string  `json:"stamp_source,omitempty"`
	// Discarded are the repetitions set aside ({repetition, reason}; in
	// files written before the step repeated, {ttft_ms, total_ms,
	// reason}).
	Discarded []json.RawMessage `json:"discarded,omitempty"`
	Pacing    *Pacing           `json:"pacing,omitempty"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat); 0 in files written before the step repeated, which hold
	// one measurement and no Runs.
	Repeat int           `json:"repeat,omitempty"`
	Runs   []SentenceRun `json:"runs,omitempty"`
}

// SentenceRun is one repetition of the sentence step: the members of
// sentence.json's top level but the chunks.
type SentenceRun struct {
	TTFTMs          float64 `json:"ttft_ms"`
	FirstSentenceMs float64 `json:"first_sentence_ms"`
	TotalMs         float64 `json:"total_ms"`
	FirstSentence   string  `json:"first_sentence"`
	Text            string  `json:"text"`
	StampSource     string  `json:"stamp_source,omitempty"`
	Pacing          *Pacing `json:"pacing,omitempty"`
}

// Repetitions are the step's repetitions (see repetitions).
func (s Sentence) Repetitions() []SentenceRun {
	return repetitions(s.Runs, func() SentenceRun {
		return SentenceRun{TTFTMs: s.TTFTMs, FirstSentenceMs: s.FirstSentenceMs, TotalMs: s.TotalMs,
			FirstSentence: s.FirstSentence, Text: s.Text, StampSource: s.StampSource, Pacing: s.Pacing}
	})
}

// LogMark is where this run's lines began in the server log: the file (by
// inode) and its size then.
type LogMark struct {
	Path   string  `json:"path"`
	Offset float64 `json:"offset"`
	Inode  float64 `json:"inode"`
}

// CancelAttempt is one try of the cancellation step (it retries when a
// fast server finishes before the cut).
type CancelAttempt struct {
	Cut            bool    `json:"cut"`
	CutAfterMs     float64 `json:"cut_after_ms"`
	MaxTokens      float64 `json:"max_tokens"`
	ReceivedTokens float64 `json:"received_tokens"`
	TotalMs        float64 `json:"total_ms"`
	FinishReason   string  `json:"finish_reason,omitempty"`
}

// Cancel is cancel.json: a cut mid-answer and the slot going idle, as
// often as the lab's --repeat asks.
type Cancel struct {
	MaxTokens      float64  `json:"max_tokens"`
	CutAfterMs     *float64 `json:"cut_after_ms,omitempty"`
	ReceivedTokens float64  `json:"received_tokens"`
	ClosedAtMs     float64  `json:"closed_at_ms"`
	// SlotIdleAfterMs is how long after the close the server showed it
	// had stopped (Evidence says how); null with evidence "client".
	SlotIdleAfterMs *float64 `json:"slot_idle_after_ms"`
	// Evidence is "slots" (/slots' is_processing), "metrics" (the
	// running-requests gauge) or "client" (the server shows neither:
	// NoEvidence says why); "" in a file written before evidence was named.
	Evidence   string          `json:"evidence,omitempty"`
	NoEvidence string          `json:"no_evidence,omitempty"`
	Done       *bool           `json:"done,omitempty"`
	Cut        *bool           `json:"cut,omitempty"`
	IgnoreEOS  *bool           `json:"ignore_eos,omitempty"`
	TotalMs    *float64        `json:"total_ms,omitempty"`
	ChunkMs    []float64       `json:"chunk_ms,omitempty"`
	Attempts   []CancelAttempt `json:"attempts,omitempty"`
	// LogFrom and LogCancelTask only when the lab had the server's log.
	LogFrom       *LogMark `json:"log_from,omitempty"`
	LogCancelTask *bool    `json:"log_cancel_task,omitempty"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat); Runs are the valid ones in order, each a measurement of
	// its own with its attempts (the top level holds the first, the log's
	// fields only the top level); Discarded are those set aside, with
	// why. All three absent in a file written before the step repeated.
	Repeat    int               `json:"repeat,omitempty"`
	Runs      []Cancel          `json:"runs,omitempty"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// Repetitions are the cut's measurements (see repetitions).
func (c Cancel) Repetitions() []Cancel {
	return repetitions(c.Runs, func() Cancel { return c })
}

// Bargein is bargein.json: the caller interrupts after a few chunks, then
// the next turn with the half answer in its history, against the same
// turn with the cache flushed; as often as the lab's --repeat asks.
type Bargein struct {
	Question        string  `json:"question,omitempty"`
	FollowUp        string  `json:"follow_up,omitempty"`
	Docs            float64 `json:"docs,omitempty"`
	CutAfterChunks  float64 `json:"cut_after_chunks,omitempty"`
	ReceivedTokens  float64 `json:"received_tokens"`
	ClosedAtMs      float64 `json:"closed_at_ms"`
	SlotIdleAfterMs float64 `json:"slot_idle_after_ms"`
	PartialText     string  `json:"partial_text,omitempty"`
	Resumed         Tokens  `json:"resumed"`
	Cold            Tokens  `json:"cold"`
	// Repeat is how many repetitions the step was asked for (the lab's
	// --repeat); Runs are the valid ones in order, each with the fields
	// of one measurement (received_tokens to cold; the top level holds
	// the first); Discarded are those set aside, with why. All three
	// absent in a file written before the step repeated.
	Repeat    int               `json:"repeat,omitempty"`
	Runs      []Bargein         `json:"runs,omitempty"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// Repetitions are the barge-in's measurements (see repetitions).
func (b Bargein) Repetitions() []Bargein {
	return repetitions(b.Runs, func() Bargein { return b })
}

// PrefixPosition is one place of the changing line: what the request cost
// with the line there; FirstDifference (tokens) and AtChar say where the
// prompts first differ, null when the server could not tell.
type PrefixPosition struct {
	Position        string   `json:"position"`
	PromptN         float64  `json:"prompt_n"`
	CacheN          *float64 `json:"cache_n,omitempty"`
	TTFTMs          float64  `json:"ttft_ms"`
	FirstDifference *float64 `json:"first_difference,omitempty"`
	AtChar          *float64 `json:"at_char,omitempty"`
}

// Tokens is the position's cost as a Tokens.
func (p PrefixPosition) Tokens() Tokens {
	return Tokens{PromptN: p.PromptN, CacheN: p.CacheN, TTFTMs: p.TTFTMs}
}

// PrefixRun is one repetition of the prefix step: every place of the
// changing line, primed and timed, with that repetition's line.
type PrefixRun struct {
	ChangingLine string           `json:"changing_line,omitempty"`
	Positions    []PrefixPosition `json:"positions"`
}

// Prefix is prefix.json: where a changing line costs the cache, Repeat
// times (Runs); changing_line and positions hold the first repetition.
type Prefix struct {
	ChangingLine string           `json:"changing_line,omitempty"`
	Docs         float64          `json:"docs,omitempty"`
	Positions    []PrefixPosition `json:"positions"`
	Advice       string           `json:"advice,omitempty"`
	// Repeat, Runs and Discarded as in Cache.
	Repeat    int               `json:"repeat,omitempty"`
	Runs      []PrefixRun       `json:"runs,omitempty"`
	Discarded []json.RawMessage `json:"discarded,omitempty"`
}

// Repetitions are the step's repetitions (see repetitions).
func (p Prefix) Repetitions() []PrefixRun {
	return repetitions(p.Runs, func() PrefixRun { return PrefixRun{ChangingLine: p.ChangingLine, Positions: p.Positions} })
}

// Report is report.json: the headline numbers, copied from the other
// artifacts, and the model and server measured. A number is null when
// the step it comes from did not measure it (skipped: the server cannot
// give it; failed), and NotMeasured names that step with why
// ("skipped: ...", "failed: ..."); cancel_idle_ms is also null when the
// cancel step's evidence was client-side only.
type Report struct {
	TTFTP50Ms            *float64          `json:"ttft_p50_ms"`
	TotalP50Ms           *float64          `json:"total_p50_ms"`
	TTFT12DocsMs         *float64          `json:"ttft_12docs_ms"`
	PromptN12Docs        *float64          `json:"prompt_n_12docs"`
	CacheTTFTMs          *float64          `json:"cache_ttft_ms"`
	FirstSentenceMs      *float64          `json:"first_sentence_ms"`
	CancelIdleMs         *float64          `json:"cancel_idle_ms"`
	SpeechStallMs        *float64          `json:"speech_stall_ms"`
	FirstAudioP50Ms      *float64          `json:"first_audio_p50_ms"`
	BargeinResumedTTFTMs *float64          `json:"bargein_resumed_ttft_ms"`
	BargeinColdTTFTMs    *float64          `json:"bargein_cold_ttft_ms"`
	PrefixFrontPromptN   *float64          `json:"prefix_front_prompt_n"`
	PrefixLastPromptN    *float64          `json:"prefix_last_prompt_n"`
	NotMeasured          map[string]string `json:"not_measured,omitempty"`
	Model                RunModel          `json:"model"`
	Server               *RunServer        `json:"server,omitempty"`
}

// Step statuses in steps.json.
const (
	StepPassed  = "passed"
	StepFailed  = "failed"
	StepSkipped = "skipped" // could not run: a step it needs did not pass, or the server cannot do it
	StepNotRun  = "not run" // not selected in this run
)

// Step is one lab step as this run left it. Detail is the step's summary
// line when it passed, the error when it failed, the reason when it was
// skipped. Artifacts are the files the step writes.
type Step struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"`
	Detail    string   `json:"detail,omitempty"`
	Ms        float64  `json:"ms"`
	Artifacts []string `json:"artifacts"`
}

// Steps is steps.json: every step of the lab in order, rewritten as each
// step ends, so an interrupted run still says what it did.
type Steps struct {
	// API is the streaming API the lab's requests used: chat,
	// completions or responses ("" in folders from before it was
	// recorded: chat).
	API string `json:"api,omitempty"`
	// KB is the knowledge-base folder the prompts' documents came from
	// (--kb); absent for the bundled one.
	KB    string `json:"kb,omitempty"`
	Steps []Step `json:"steps"`
}

// Count returns how many steps have the given status.
func (s Steps) Count(status string) int {
	n := 0
	for _, st := range s.Steps {
		if st.Status == status {
			n++
		}
	}
	return n
}

// Of returns the step that writes file, if steps.json names one.
func (s Steps) Of(file string) (Step, bool) {
	for _, st := range s.Steps {
		for _, a := range st.Artifacts {
			if a == file {
				return st, true
			}
		}
	}
	return Step{}, false
}
