package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ttftlab/internal/check"
)

// Lab is a lab run's folder. A nil pointer or empty slice is a file the
// run did not write (or one that could not be read, named in Problems).
type Lab struct {
	Dir      string
	Finished time.Time
	Props    *Props
	Chunks   []Chunk
	TTFT     *TTFT
	Prefill  []PrefillRow
	Cache    *Cache
	Sentence *Sentence
	Cancel   *Cancel
	Bargein  *Bargein
	Prefix   *Prefix
	// Report is report.json, every value in file order.
	Report []Field
	// Extra are the JSON files no section knows yet, by name.
	Extra    map[string][]Field
	Checks   []check.Outcome
	Problems []string
}

// Props is what the report shows of llama-server's /props.
type Props struct {
	Settings struct {
		NCtx float64 `json:"n_ctx"`
	} `json:"default_generation_settings"`
	TotalSlots float64 `json:"total_slots"`
	ModelPath  string  `json:"model_path"`
	BuildInfo  string  `json:"build_info"`
}

// Chunk is one content chunk: when it arrived and its text.
type Chunk struct {
	TMs  float64 `json:"t_ms"`
	Text string  `json:"text"`
}

// TTFT is ttft.json.
type TTFT struct {
	Runs []struct {
		TTFTMs  float64 `json:"ttft_ms"`
		TotalMs float64 `json:"total_ms"`
		Tokens  float64 `json:"tokens"`
	} `json:"runs"`
	TTFTP50   float64           `json:"ttft_p50"`
	TotalP50  float64           `json:"total_p50"`
	Discarded []json.RawMessage `json:"discarded"`
}

// PrefillRow is one row of prefill.json.
type PrefillRow struct {
	Docs     float64 `json:"docs"`
	PromptN  float64 `json:"prompt_n"`
	PromptMs float64 `json:"prompt_ms"`
	TTFTMs   float64 `json:"ttft_ms"`
}

// Tokens is a request's prompt as the server counted it, and its TTFT.
type Tokens struct {
	PromptN float64 `json:"prompt_n"`
	CacheN  float64 `json:"cache_n"`
	TTFTMs  float64 `json:"ttft_ms"`
}

// Cache is cache.json.
type Cache struct {
	First         *Tokens `json:"first"`
	Second        *Tokens `json:"second"`
	ChangedPrefix *Tokens `json:"changed_prefix"`
}

// Sentence is sentence.json; Pacing and Chunks only when the step wrote
// them.
type Sentence struct {
	TTFTMs          float64 `json:"ttft_ms"`
	FirstSentenceMs float64 `json:"first_sentence_ms"`
	TotalMs         float64 `json:"total_ms"`
	FirstSentence   string  `json:"first_sentence"`
	Text            string  `json:"text"`
	Pacing          *Pacing `json:"pacing"`
	Chunks          []Chunk `json:"chunks"`
}

// Pacing is when a speaker would speak each sentence of the answer.
type Pacing struct {
	StartMs       float64 `json:"start_ms"`
	EndMs         float64 `json:"end_ms"`
	StallMs       float64 `json:"stall_ms"`
	Stalls        float64 `json:"stalls"`
	FirstClauseMs float64 `json:"first_clause_ms"`
	Sentences     []struct {
		Text    string  `json:"text"`
		ReadyMs float64 `json:"ready_ms"`
		StartMs float64 `json:"start_ms"`
		EndMs   float64 `json:"end_ms"`
	} `json:"sentences"`
}

// Cancel is cancel.json.
type Cancel struct {
	MaxTokens       float64 `json:"max_tokens"`
	ReceivedTokens  float64 `json:"received_tokens"`
	ClosedAtMs      float64 `json:"closed_at_ms"`
	SlotIdleAfterMs float64 `json:"slot_idle_after_ms"`
	CutAfterMs      float64 `json:"cut_after_ms"`
	LogCancelTask   *bool   `json:"log_cancel_task"`
	Attempts        []struct {
		Cut            bool    `json:"cut"`
		CutAfterMs     float64 `json:"cut_after_ms"`
		MaxTokens      float64 `json:"max_tokens"`
		ReceivedTokens float64 `json:"received_tokens"`
		TotalMs        float64 `json:"total_ms"`
		FinishReason   string  `json:"finish_reason"`
	} `json:"attempts"`
	// ChunkMs is the arrival of every chunk up to the cut.
	ChunkMs []float64 `json:"chunk_ms"`
}

// Bargein is bargein.json: a cut mid-answer, then the next turn.
type Bargein struct {
	Question        string  `json:"question"`
	MaxTokens       float64 `json:"max_tokens"`
	CutAfterMs      float64 `json:"cut_after_ms"`
	ReceivedTokens  float64 `json:"received_tokens"`
	ClosedAtMs      float64 `json:"closed_at_ms"`
	PartialText     string  `json:"partial_text"`
	SlotIdleAfterMs float64 `json:"slot_idle_after_ms"`
	FollowUp        string  `json:"follow_up"`
	Resumed         *Tokens `json:"resumed"`
	Cold            *Tokens `json:"cold"`
}

// Prefix is prefix.json: where a changing line costs the cache.
type Prefix struct {
	ChangingLine string  `json:"changing_line"`
	Primed       *Tokens `json:"primed"`
	Positions    []struct {
		Position        string   `json:"position"`
		AtChar          float64  `json:"at_char"`
		PromptN         float64  `json:"prompt_n"`
		CacheN          float64  `json:"cache_n"`
		TTFTMs          float64  `json:"ttft_ms"`
		FirstDifference *float64 `json:"first_difference"`
	} `json:"positions"`
}

// labFiles are the files a section reads; every other *.json is Extra.
var labFiles = map[string]bool{"health.json": true, "props.json": true, "ttft.json": true, "prefill.json": true,
	"cache.json": true, "sentence.json": true, "cancel.json": true, "bargein.json": true, "prefix.json": true,
	"report.json": true}

// ReadLab reads a lab folder and runs ttftlab check on it; serverLog is
// passed to the check (it may be "").
func ReadLab(dir, serverLog string) *Lab {
	var p problems
	l := &Lab{Dir: dir, Finished: finished(dir), Extra: map[string][]Field{}}
	l.Props = readOpt[Props](dir, "props.json", &p)
	l.TTFT = readOpt[TTFT](dir, "ttft.json", &p)
	l.Cache = readOpt[Cache](dir, "cache.json", &p)
	l.Sentence = readOpt[Sentence](dir, "sentence.json", &p)
	l.Cancel = readOpt[Cancel](dir, "cancel.json", &p)
	l.Bargein = readOpt[Bargein](dir, "bargein.json", &p)
	l.Prefix = readOpt[Prefix](dir, "prefix.json", &p)
	readJSON(dir, "prefill.json", &l.Prefill, &p)
	readLines(dir, "chunks.jsonl", &p, func(line []byte) error {
		var c Chunk
		err := json.Unmarshal(line, &c)
		if err == nil {
			l.Chunks = append(l.Chunks, c)
		}
		return err
	})
	l.Report = readFields(dir, "report.json", &p)
	for _, name := range extraJSON(dir) {
		if f := readFields(dir, name, &p); len(f) > 0 {
			l.Extra[name] = f
		}
	}
	l.Checks = check.Results(dir, serverLog)
	l.Problems = p
	return l
}

func readOpt[T any](dir, name string, p *problems) *T {
	v := new(T)
	if !readJSON(dir, name, v, p) {
		return nil
	}
	return v
}

// extraJSON lists the folder's JSON files that no section reads, sorted.
func extraJSON(dir string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, m := range matches {
		name := filepath.Base(m)
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && !labFiles[name] && !strings.HasPrefix(name, ".") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
