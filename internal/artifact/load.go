package artifact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// What each of stream_many's distributions is over (Dist.Over). A figure
// a request does not have is left out of its distribution, never counted
// as zero: a request that failed before its first token has no ttft_ms.
const (
	OverTTFT          = "requests with a first token (one that failed later included)"
	OverFirstSentence = "requests with a complete first sentence (one that failed later included)"
	OverTotal         = "requests that ended without an error"
	OverGap           = "gaps between consecutive chunks, of every request"
	OverQueue         = "every request started"
	OverStall         = "requests that ended without an error"
	OverFirstAudio    = "requests whose answer's audio came (sent sentence by sentence to the speech server)"
	OverUnderrun      = "requests whose answer's audio came: silence while it was spoken"
	OverMouthToEar    = "turns the caller spoke whose answer's audio came (speech end to first audio)"
	OverSttFinal      = "turns the caller spoke whose final transcript came (speech end to final transcript)"
	OverEndpointing   = "turns the caller spoke whose speech-to-text server said when the speech stopped"
	OverLate          = "every request started, warm-up and ramp included (its start past the moment it could start)"
)

// Load is load.json: what `ttftlab load` was asked to do, the model and
// server it measured, one record per level (rewritten after each level
// ends) and the capacity.
type Load struct {
	Settings LoadSettings `json:"settings"`
	Model    *RunModel    `json:"model"`
	Server   *RunServer   `json:"server"`
	Levels   []LoadLevel  `json:"levels"`
	// Capacity is the highest level whose SLOs hold, null when none did.
	Capacity *Capacity `json:"capacity"`
}

// LoadSettings are the flags of the run.
type LoadSettings struct {
	Server string `json:"server"`
	// ServerKind is the kind of server that answered (servers.Kind), ""
	// in a load.json written before kinds were told apart.
	ServerKind string `json:"server_kind,omitempty"`
	// Mode is "concurrency" (a closed loop), "rate" (an open one) or
	// "trace" (a replayed trace, Trace: one level, its speed).
	Mode string `json:"mode"`
	// Levels are the levels given, or with a search (SearchMax > 0) the
	// levels it ran, in the order it ran them.
	Levels []float64 `json:"levels"`
	// RunID names a run split over shards (--run-id): every shard's
	// load.json and request rows carry it, and a merge holds it; absent
	// otherwise.
	RunID string `json:"run_id,omitempty"`
	// Shard is this folder's part of a sharded run (--shard I/N); absent
	// in an unsharded run and in a merge (see Shards).
	Shard *LoadShard `json:"shard,omitempty"`
	// Shards is, in a merge (ttftlab merge), how many shards it holds;
	// absent otherwise.
	Shards int `json:"shards,omitempty"`
	// StartAtUnixMs is, in a sharded run, when its first level was due on
	// the wall clock (ms since the Unix epoch, UTC): --start-at, or the
	// moment --barrier chose; level k was due LevelGapMs + DurationMs
	// later than level k-1. Absent otherwise.
	StartAtUnixMs float64 `json:"start_at_unix_ms,omitempty"`
	// LevelGapMs is a sharded run's pause between one level's end of
	// starts (DurationMs) and the next level's start (--level-gap).
	LevelGapMs float64 `json:"level_gap_ms,omitempty"`
	// SearchMax is the largest level a capacity search (--search) may
	// try; absent without a search.
	SearchMax int `json:"search_max,omitempty"`
	// SearchBudget is the most calls a search gives one level over all
	// its rounds (--search-budget); absent without a search.
	SearchBudget int `json:"search_budget,omitempty"`
	// SearchStart is the rate a search of rates starts from (--rate with
	// --search); absent otherwise.
	SearchStart float64 `json:"search_start,omitempty"`
	// Calls is the number of calls per level (the --requests flag);
	// Requests the requests they make, Calls x Turns (a call that fails
	// ends early, so a level may make fewer). 0 in a load.json written
	// before calls were told apart from requests, whose Requests was the
	// calls.
	Calls      int     `json:"calls,omitempty"`
	Requests   int     `json:"requests"`
	DurationMs float64 `json:"duration_ms"`
	Turns      int     `json:"turns"`
	ThinkMs    float64 `json:"think_ms"`
	Docs       int     `json:"docs"`
	MaxTokens  int     `json:"max_tokens"`
	Arrival    string  `json:"arrival"`
	Seed       int     `json:"seed"`
	Warmup     int     `json:"warmup"`
	// WarmupMs is --warmup given as a duration: the requests due in each
	// level's first WarmupMs are left out; absent when given as a count.
	WarmupMs float64 `json:"warmup_ms,omitempty"`
	// RequestTimeoutMs bounds each whole request (--request-timeout).
	RequestTimeoutMs *float64 `json:"request_timeout_ms,omitempty"`
	SLO              []SLO    `json:"slo"`
	// API is the streaming API of every request (--api): chat,
	// completions or responses ("" before it was recorded: chat).
	API string `json:"api,omitempty"`
	// KB is the knowledge-base folder the prompts' documents came from
	// (--kb); absent for the bundled one.
	KB string `json:"kb,omitempty"`
	// TTS is the speech server every answer was spoken through (--tts);
	// absent without one.
	TTS *AudioTTS `json:"tts,omitempty"`
	// STT is the speech-to-text server every turn was spoken to (--stt);
	// absent without one.
	STT *LoadSTT `json:"stt,omitempty"`
	// Trace is the replayed trace (--trace, Mode "trace": one level, the
	// level's number the replay's speed); absent otherwise.
	Trace *LoadTrace `json:"trace,omitempty"`
	// Ramp is each level's ramp (--ramp); absent without one.
	Ramp *LoadRamp `json:"ramp,omitempty"`
	// SteadyStart: calls began at staggered turns with their earlier turns
	// already in the prompt as history (--steady-start).
	SteadyStart bool `json:"steady_start,omitempty"`
	// UntilDecided is --until-decided: each level runs further rounds
	// until its SLO verdicts are decided or its budget is spent; absent
	// otherwise.
	UntilDecided *UntilDecided `json:"until_decided,omitempty"`
	// Realtime is, in a load of speech-to-speech sessions (load
	// --realtime), their server and how they were held; absent otherwise.
	Realtime *LoadRealtime `json:"realtime,omitempty"`
}

// LoadTrace is a replayed trace (--trace): the file, its format
// ("mooncake" or "calls"), its SHA-256 (what a shard and a merge check
// they replayed the same), what was replayed of it (the window on its own
// clock, FromMs and ToMs, null where not given; Speed, times divided by
// it) and how (Max, the cap on calls at once, 0 none; Block, tokens per
// hash_id block; Vocab, the vocabulary the prompts' token ids were drawn
// in, 0 for a call log). Lines is the lines read, Calls and Requests what
// the window kept; SpanMs is when the last kept call starts, from the
// replay's origin and after the speed (how long the calls keep coming).
// SharedShare is the trace's own prefix sharing: the
// share of the kept requests' input tokens an earlier kept request had
// sent (Mooncake), null for a call log.
type LoadTrace struct {
	File        string   `json:"file"`
	Format      string   `json:"format"`
	SHA256      string   `json:"sha256"`
	Lines       int      `json:"lines"`
	Calls       int      `json:"calls"`
	Requests    int      `json:"requests"`
	SpanMs      float64  `json:"span_ms"`
	Speed       float64  `json:"speed"`
	FromMs      *float64 `json:"from_ms"`
	ToMs        *float64 `json:"to_ms"`
	Max         int      `json:"max"`
	Block       int      `json:"block,omitempty"`
	Vocab       int      `json:"vocab,omitempty"`
	SharedShare *float64 `json:"shared_share"`
}

// LoadRamp is a level's ramp (--ramp): over its first DurationMs the
// calls at once (or the rate) grow from none to the level, linearly or
// exponentially (Shape "linear" or "exp"); Keep (--ramp-keep) counts the
// ramp's requests in the level's figures.
type LoadRamp struct {
	DurationMs float64 `json:"duration_ms"`
	Shape      string  `json:"shape"`
	Keep       bool    `json:"keep,omitempty"`
}

// LoadSTT is the speech-to-text side of a load whose callers speak
// (--stt), and of the lab's call step (call.json's stt), as stt_info()
// gives it (request.Caller.Record): the server,
// the protocol spoken to it, its engine (the default engine's name and
// version, "" for a user's server), model and language where given,
// the --caller-audio folder (absent: the questions spoken by
// espeak-ng), the API key only as where it was set.
type LoadSTT struct {
	URL         string `json:"url"`
	API         string `json:"api"`
	Engine      string `json:"engine"`
	Model       string `json:"model,omitempty"`
	Language    string `json:"language,omitempty"`
	CallerAudio string `json:"caller_audio,omitempty"`
	APIKey      string `json:"api_key,omitempty"`
}

// UntilDecided is the budget of each level of a run until decided
// (--budget): at most BudgetRequests requests (warm-up included), or
// rounds that fit in BudgetMs; one of the two is set.
type UntilDecided struct {
	BudgetRequests int     `json:"budget_requests,omitempty"`
	BudgetMs       float64 `json:"budget_ms,omitempty"`
}

// SLO is one objective: Metric's Percentile-th percentile at most LimitMs.
type SLO struct {
	Metric     string  `json:"metric"`
	Percentile float64 `json:"percentile"`
	LimitMs    float64 `json:"limit_ms"`
	// Text is the objective as it was typed (--slo).
	Text string `json:"text,omitempty"`
}

// RunModel is the model the numbers belong to (runtime.ModelOf).
type RunModel struct {
	Name      *string `json:"name"`
	Path      *string `json:"path"`
	Synthetic bool    `json:"synthetic"`
}

// RunServer is the server's settings (runtime.ServerOf); threads,
// cache_ram and args are known only for a server ttftlab started.
type RunServer struct {
	NCtx     *float64 `json:"n_ctx"`
	Slots    *float64 `json:"slots"`
	Threads  *float64 `json:"threads"`
	CacheRAM *float64 `json:"cache_ram"`
	Args     []string `json:"args"`
	Build    *string  `json:"build"`
	// Kind is the kind of server (servers.Kind: "llama.cpp", "vllm",
	// "sglang", "ollama", "openai-compatible"); "" in a file written
	// before kinds were told apart.
	Kind string `json:"kind,omitempty"`
	// Endpoint is how ttftlab reached the server (server_info().endpoint).
	Endpoint *RunEndpoint `json:"endpoint,omitempty"`
}

// RunEndpoint is the endpoint as artifacts record it: the API key only as
// where it was set ("set from OPENAI_API_KEY"), secret headers redacted.
type RunEndpoint struct {
	URL       string            `json:"url"`
	APIKey    string            `json:"api_key,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	Model     string            `json:"model,omitempty"`
	ModelFrom string            `json:"model_from,omitempty"`
	CACert    string            `json:"ca_cert,omitempty"`
	Insecure  bool              `json:"insecure,omitempty"`
}

// LoadShard is one shard of a sharded run: it ran the calls whose number
// is Index+1 modulo Count of every level's whole schedule, on Host.
type LoadShard struct {
	Index int    `json:"index"`
	Count int    `json:"count"`
	Host  string `json:"host"`
}

// LoadLevel is one level of the sweep.
type LoadLevel struct {
	Level float64 `json:"level"`
	// Concurrency or Rate repeats Level under the run's mode.
	Concurrency *float64     `json:"concurrency,omitempty"`
	Rate        *float64     `json:"rate,omitempty"`
	Summary     LevelSummary `json:"summary"`
	SLO         []SLOVerdict `json:"slo"`
	// Goodput is the share of the level's requests (warm-up left out) that
	// meet every SLO on their own; null when no request counted.
	Goodput *float64 `json:"goodput"`
	// SLOMet: every SLO met and no request failed; never for an
	// interrupted level.
	SLOMet bool `json:"slo_met"`
	// Interrupted marks the level the run was stopped in (Ctrl-C): its
	// record is computed from the requests it recorded, those the stop
	// canceled counted as failed (kind canceled), and it counts for no
	// capacity.
	Interrupted bool `json:"interrupted,omitempty"`
	// Pooled is, with a search, the level's verdict over every round the
	// search ran of it (Summary, SLO and SLOMet are its first round's);
	// absent without a search.
	Pooled *LevelPooled `json:"pooled,omitempty"`
	// Steady is how the level's lateness moved over its requests (warm-up
	// and the transient before SteadyWindow left out): its first and last
	// thirds agree or not. Absent in files written before it.
	Steady *LevelTrend `json:"steady,omitempty"`
	// SteadyWindow is where the level's steady state was found to begin
	// (MSER-5 on ttft_ms): the requests before it are its transient, left
	// out of the level's figures as warm-up is. Absent in files written
	// before it.
	SteadyWindow *SteadyWindow `json:"steady_window,omitempty"`
	// OverSaturated, in an open loop, is the trend that ended the level
	// early: its lateness kept rising, so no new call started and the
	// level does not hold. Absent when it did not happen.
	OverSaturated *LevelTrend `json:"over_saturated,omitempty"`
	// TTSCPUMsPerAudioS is, with the default speech engine (--tts
	// default, on this machine), the CPU time its processes used per
	// second of audio they spoke during the level: what speaking costs the
	// cores the client shares. Absent otherwise.
	TTSCPUMsPerAudioS *float64 `json:"tts_cpu_ms_per_audio_s,omitempty"`
	// STTCPUMsPerAudioS is, with the default speech-to-text engine (--stt
	// default, on this machine), the CPU time its decoders used per second
	// of the callers' audio sent to it during the level (every turn's
	// caller_audio_ms). Absent otherwise.
	STTCPUMsPerAudioS *float64 `json:"stt_cpu_ms_per_audio_s,omitempty"`
	// DueUnixMs is, in a sharded run, when the level was due to start on
	// the wall clock (ms since the Unix epoch); Summary.StartedUnixMs is
	// when it did. Absent otherwise.
	DueUnixMs *float64 `json:"due_unix_ms,omitempty"`
	// Shards are, in a merge, each shard's start of the level and its
	// requests; StartSpreadMs is the latest start less the earliest.
	// Absent otherwise.
	Shards        []LevelShard `json:"shards,omitempty"`
	StartSpreadMs *float64     `json:"start_spread_ms,omitempty"`
	// Decision is, with --until-decided, how the level's rounds ended
	// (its record is then over every round); absent otherwise.
	Decision *LevelDecision `json:"decision,omitempty"`
}

// LevelDecision is how a level run until decided ended: after Rounds
// rounds of Requests requests in all (warm-up included, what a budget
// of requests counts), Ended "decided" (every SLO's interval on one
// side of its limit; in a search, the level's verdict settled: an SLO
// above its limit, or every one below), "failed" (a request failed: the
// level cannot hold whatever more rounds show), "over-saturated" or
// "budget" (the budget left no further round). Decided is Ended other
// than "budget". Undecided are the SLO verdicts whose interval still
// holds the limit, with how many more requests would decide each.
type LevelDecision struct {
	Rounds    int            `json:"rounds"`
	Requests  int            `json:"requests"`
	Decided   bool           `json:"decided"`
	Ended     string         `json:"ended"`
	Undecided []UndecidedSLO `json:"undecided"`
}

// UndecidedSLO is an SLO verdict whose interval holds its limit after N
// requests (warm-up left out): MoreRequests is how many more would
// decide it by the rule of load.MoreToDecide (the interval's half-width
// on the limit's side shrinking as 1/sqrt(n)), AtLeast when that side
// has no bound yet and the count is the fewest requests that give it
// one; null when no count would (Why says why).
type UndecidedSLO struct {
	Metric       string  `json:"metric"`
	Percentile   float64 `json:"percentile"`
	LimitMs      float64 `json:"limit_ms"`
	N            int     `json:"n"`
	MoreRequests *int    `json:"more_requests"`
	AtLeast      bool    `json:"at_least,omitempty"`
	Why          string  `json:"why,omitempty"`
}

// LevelShard is one shard's part of a merged level.
type LevelShard struct {
	Shard int    `json:"shard"`
	Host  string `json:"host"`
	// StartedUnixMs is when the shard's level began (its stream_many's
	// start) on the shard's wall clock; null when unknown.
	StartedUnixMs *float64 `json:"started_unix_ms"`
	Requests      int      `json:"requests"`
	Failed        int      `json:"failed"`
}

// LevelTrend is how one figure moved over a level's requests in the
// order they started (load.TrendOf): the median of each third with its
// 95 % interval. Metric names the figure: the first SLO's, counted from
// when each request was due ("queue_ms + ttft_ms").
type LevelTrend struct {
	Metric string `json:"metric"`
	// Steady: the first and last thirds' intervals overlap; Known: each
	// third has enough requests (6) to bound its median, else Steady says
	// nothing. Rising: each third's interval wholly above the one before.
	Steady bool          `json:"steady"`
	Known  bool          `json:"known"`
	Rising bool          `json:"rising"`
	Thirds []TrendWindow `json:"thirds"`
	// Drift is the rank test of the same requests' batch means against
	// time; absent in files written before it.
	Drift *TrendDrift `json:"drift,omitempty"`
}

// TrendDrift is Spearman's rank correlation of a level's batch means
// (Batch requests each, in the order they started) with time: Rho and
// its two-sided p-value P, null when not Known (fewer than 5 batches, or
// every mean the same). Drifting: P below 0.05 and the first and last
// thirds' medians apart by more than the steady state's tolerance: a
// warning on the level.
type TrendDrift struct {
	Batch    int      `json:"batch"`
	Batches  int      `json:"batches"`
	Rho      *float64 `json:"rho"`
	P        *float64 `json:"p"`
	Known    bool     `json:"known"`
	Drifting bool     `json:"drifting"`
}

// SteadyWindow is the steady window of a level, detected on its
// requests after warm-up in the order they started: Rule ("MSER-5")
// batches Metric's values into batches of Batch requests and cuts the
// first batches while that lowers the MSER statistic (at most half of
// them), keeping the cut only when the batches cut differ from the rest
// (docs/statistics.md). Known is false with fewer than 4 batches: nothing
// is cut then.
type SteadyWindow struct {
	Metric  string `json:"metric"`
	Rule    string `json:"rule"`
	Batch   int    `json:"batch"`
	Batches int    `json:"batches"`
	Known   bool   `json:"known"`
	// FromRequest is the place (1-based, in the order they started,
	// warm-up left out) of the window's first request; FromIndex its
	// index in requests.jsonl (null in a merge, whose order is the
	// rows' wall clock, or when nothing was cut).
	FromRequest int  `json:"from_request"`
	FromIndex   *int `json:"from_index"`
	// LeftOut counts the requests before the window left out of the
	// level's figures (the transient); a failed request is never left
	// out.
	LeftOut int `json:"left_out"`
}

// TrendWindow is one third of a level's requests: the first one's place
// (1-based), how many, and their median with its 95 % interval (null
// where late or unbounded).
type TrendWindow struct {
	From  int         `json:"from"`
	N     int         `json:"n"`
	P50Ms *float64    `json:"p50_ms"`
	CIMs  [2]*float64 `json:"ci_ms"`
}

// LevelPooled is a level's verdict over the requests of every round a
// capacity search ran of it: each SLO's percentile with its 95 %
// interval, and whether the intervals decide it.
type LevelPooled struct {
	Rounds int `json:"rounds"`
	Calls  int `json:"calls"`
	Failed int `json:"failed"`
	// Met: no request failed and every percentile is within its limit;
	// Decided: a failure, or every interval on one side of its limit,
	// settles it.
	Met     bool        `json:"met"`
	Decided bool        `json:"decided"`
	SLO     []PooledSLO `json:"slo"`
}

// PooledSLO is one SLO's percentile over a level's pooled requests (a
// request that failed or never reached the figure above every value):
// ValueMs null when it falls on such a request; CIMs its 95 %
// order-statistic interval, a bound null when nothing finite bounds that
// side; Side where the interval lies against the limit: "below" (held),
// "above" (not held) or "straddles" (undecided).
type PooledSLO struct {
	Metric     string      `json:"metric"`
	Percentile float64     `json:"percentile"`
	LimitMs    float64     `json:"limit_ms"`
	ValueMs    *float64    `json:"value_ms"`
	CIMs       [2]*float64 `json:"ci_ms"`
	N          int         `json:"n"`
	Side       string      `json:"side"`
}

// SLOVerdict is one SLO checked on a level. The percentile is over every
// request of the level (warm-up left out), a request that failed or never
// reached the figure counting as infinitely late: when the percentile
// falls on such a request ValueMs is null and Met is false.
type SLOVerdict struct {
	Metric     string   `json:"metric"`
	Percentile float64  `json:"percentile"`
	LimitMs    float64  `json:"limit_ms"`
	ValueMs    *float64 `json:"value_ms"`
	// N is the number of requests the percentile is over.
	N int `json:"n"`
	// Failed counts the requests that failed; Missing those that ended
	// without an error but never reached the figure (no complete sentence).
	Failed  int  `json:"failed"`
	Missing int  `json:"missing"`
	Met     bool `json:"met"`
	// CIMs is the percentile's 95 % interval, widened for the correlation
	// of one call's requests (a bound null when nothing finite bounds that
	// side), and Side where it lies against the limit: "below", "above"
	// or "straddles" (PooledSLO.Side). Absent with no request, and in
	// files written before them.
	CIMs *[2]*float64 `json:"ci_ms,omitempty"`
	Side string       `json:"side,omitempty"`
}

// Capacity is the highest level that met every SLO, and the level above
// it with its verdicts (null when every level held). With a search it is
// never null: Level is 0 when no level held, and Search is the path.
type Capacity struct {
	Level float64       `json:"level"`
	Next  *CapacityNext `json:"next"`
	// Search is a capacity search's levels in the order it ran them;
	// absent without a search.
	Search []SearchStep `json:"search,omitempty"`
	// Decided is, with a search, whether the capacity level held and the
	// level above it did not by their intervals (absent without a
	// search); when not, Between holds the two levels in question (the
	// second absent when the capacity is the largest level).
	Decided *bool     `json:"decided,omitempty"`
	Between []float64 `json:"between,omitempty"`
}

// SearchStep is one round of a capacity search: its level, whether the
// level held over every round of it so far, and the first SLO's value at
// it (null when that percentile falls on a failed or missing request),
// with its 95 % interval and the requests it is over.
type SearchStep struct {
	Level   float64  `json:"level"`
	Met     bool     `json:"met"`
	ValueMs *float64 `json:"value_ms"`
	// Round counts the rounds of this level (1: its first; more: a
	// confirmation); Calls are this round's; CIMs and Requests are over
	// every round of the level so far. Absent in files written before
	// confirmation.
	Round    int          `json:"round,omitempty"`
	Calls    int          `json:"calls,omitempty"`
	CIMs     *[2]*float64 `json:"ci_ms,omitempty"`
	Requests int          `json:"requests,omitempty"`
	// Side is where that interval lies against the first SLO's limit:
	// "below", "above" or "straddles" (PooledSLO.Side).
	Side string `json:"side,omitempty"`
	// OverSaturated marks a round that ended early as over-saturated
	// (LoadLevel.OverSaturated).
	OverSaturated bool `json:"over_saturated,omitempty"`
}

// CapacityNext is the first level that did not hold.
type CapacityNext struct {
	Level float64      `json:"level"`
	SLO   []SLOVerdict `json:"slo"`
}

// LevelSummary is a level's summary: stream_many's, plus what the calls
// module adds.
type LevelSummary struct {
	ManySummary
	// Calls is the number of calls that ran.
	Calls int `json:"calls"`
	// ByTurn summarises each turn number over its requests that ended
	// without an error.
	ByTurn []TurnSummary `json:"by_turn"`
}

// ManySummary is stream_many's summary, over the requests that are not
// warm-up. Each distribution says what it is over (the Over* constants).
type ManySummary struct {
	Requests int `json:"requests"`
	OK       int `json:"ok"`
	Failed   int `json:"failed"`
	// Cut counts the requests the client stopped on purpose (not failures).
	Cut    int `json:"cut"`
	Warmup int `json:"warmup"`
	// Failures are the failed requests by kind, most frequent first.
	Failures []Failure `json:"failures"`
	// StartedUnixMs is the wall clock (ms since the Unix epoch) at the
	// moment the run's clock began, from which StartMs and ScheduledMs
	// count; absent in files written before it.
	StartedUnixMs *float64 `json:"started_unix_ms,omitempty"`
	DurationMs    float64  `json:"duration_ms"`
	RequestsPerS  *float64 `json:"requests_per_s"`
	TokensPerS    *float64 `json:"tokens_per_s"`

	TTFTMs          Dist `json:"ttft_ms"`
	FirstSentenceMs Dist `json:"first_sentence_ms"`
	TotalMs         Dist `json:"total_ms"`
	GapMs           Dist `json:"gap_ms"`
	QueueMs         Dist `json:"queue_ms"`
	StallMs         Dist `json:"stall_ms"`
	// FirstAudioMs and UnderrunMs are the answers as spoken (stream_many's
	// tts, load --tts): absent when nothing was sent to a speech server.
	FirstAudioMs *Dist `json:"first_audio_ms,omitempty"`
	UnderrunMs   *Dist `json:"underrun_ms,omitempty"`
	// MouthToEarMs, SttFinalMs and EndpointingMs are the turns as the
	// callers spoke them (load --stt): absent when no caller spoke.
	MouthToEarMs  *Dist `json:"mouth_to_ear_ms,omitempty"`
	SttFinalMs    *Dist `json:"stt_final_ms,omitempty"`
	EndpointingMs *Dist `json:"endpointing_ms,omitempty"`
	// LateMs is how late the requests began past the moment each could
	// (Request.LateMs), over every request of the level, warm-up and
	// ramp included (OverLate): whether the client kept to its schedule.
	// Absent in files written before it.
	LateMs *Dist `json:"late_ms,omitempty"`
	// Ramp counts the requests due during the level's ramp (--ramp), left
	// out of the figures (and counted in Warmup) unless --ramp-keep.
	Ramp int `json:"ramp,omitempty"`
	// Client is what the run cost the machine that ran it; in a merge
	// the shards' machines' together (cores, CPU and reader figures
	// summed, busy over the merged span), absent when a shard has none;
	// absent in files written before it.
	Client *ClientUse `json:"client,omitempty"`
}

// BehindLimitMs is the lateness past which a level's client did not
// keep to its schedule: the p99 of its requests' late_ms above it
// (ManySummary.FellBehind).
const BehindLimitMs = 10

// FellBehind says whether the client did not keep to its schedule in the
// level: the p99 of its requests' lateness (LateMs) above BehindLimitMs,
// so its figures hold the client's own delay as well as the server's.
// False when the summary has no lateness (a file written before it, or
// no request began). The one rule the console and the report apply.
func (s *ManySummary) FellBehind() bool {
	return s.LateMs != nil && s.LateMs.P99 != nil && *s.LateMs.P99 > BehindLimitMs
}

// ClientUse is the CPU a stream_many run took on its own machine, over
// the run: whether the client, not the server, may have set the figures.
type ClientUse struct {
	// Cores is how many CPUs the machine has.
	Cores int `json:"cores"`
	// CPUMs is the process's CPU time (user and system); Busy that over
	// duration_ms x cores, the share of the machine it took.
	CPUMs float64 `json:"cpu_ms"`
	Busy  float64 `json:"busy"`
	// ReaderCPUMs is the CPU of the threads that read the sockets and
	// take the stamps; ReaderWaitMs how long they waited, runnable, for a
	// CPU (the kernel's run delay) over ReaderRuns times they were put on
	// one; both null where the kernel does not say. While they wait, data
	// stays in the sockets: chunks of one stream that arrive meanwhile are
	// read together and share the later one's stamp.
	ReaderCPUMs  float64  `json:"reader_cpu_ms"`
	ReaderWaitMs *float64 `json:"reader_wait_ms"`
	ReaderRuns   *float64 `json:"reader_runs"`
}

// Metric is the distribution named by its key in the summary (ttft_ms,
// first_sentence_ms, total_ms, gap_ms, queue_ms, stall_ms; first_audio_ms,
// underrun_ms, mouth_to_ear_ms, stt_final_ms and endpointing_ms when the
// summary has them).
func (s *ManySummary) Metric(name string) (Dist, bool) {
	switch name {
	case "ttft_ms":
		return s.TTFTMs, true
	case "first_sentence_ms":
		return s.FirstSentenceMs, true
	case "total_ms":
		return s.TotalMs, true
	case "gap_ms":
		return s.GapMs, true
	case "queue_ms":
		return s.QueueMs, true
	case "stall_ms":
		return s.StallMs, true
	case "first_audio_ms":
		if s.FirstAudioMs != nil {
			return *s.FirstAudioMs, true
		}
	case "underrun_ms":
		if s.UnderrunMs != nil {
			return *s.UnderrunMs, true
		}
	case "mouth_to_ear_ms":
		if s.MouthToEarMs != nil {
			return *s.MouthToEarMs, true
		}
	case "stt_final_ms":
		if s.SttFinalMs != nil {
			return *s.SttFinalMs, true
		}
	case "endpointing_ms":
		if s.EndpointingMs != nil {
			return *s.EndpointingMs, true
		}
	}
	return Dist{}, false
}

// Metrics are the distributions every summary has, in the order of the
// record.
var Metrics = []string{"ttft_ms", "first_sentence_ms", "total_ms", "gap_ms", "queue_ms", "stall_ms"}

// OptionalMetrics are the distributions a summary has only when its
// requests had them (spoken answers, spoken turns), in the order of the
// record.
var OptionalMetrics = []string{"first_audio_ms", "underrun_ms", "mouth_to_ear_ms", "stt_final_ms", "endpointing_ms"}

// Metrics are the names of the distributions the summary has: every
// summary's (Metrics), then those of OptionalMetrics it holds.
func (s *ManySummary) Metrics() []string {
	out := append([]string(nil), Metrics...)
	for _, m := range OptionalMetrics {
		if _, ok := s.Metric(m); ok {
			out = append(out, m)
		}
	}
	return out
}

// Failure is one kind of failure: how many requests failed so, and the
// message of one of them.
type Failure struct {
	Kind string `json:"kind"`
	// Status is the HTTP status of an "http" (or "tts_http") failure, else
	// omitted.
	Status  int    `json:"status,omitempty"`
	N       int    `json:"n"`
	Example string `json:"example"`
}

// Label is the kind with its status: "http 401", "timeout".
func (f Failure) Label() string {
	if f.Status != 0 {
		return fmt.Sprintf("%s %d", f.Kind, f.Status)
	}
	return f.Kind
}

// CountFailures groups failed requests by kind (and HTTP status), most
// frequent first, keeping the first message of each as its example.
func CountFailures(fs []Failure) []Failure {
	out := []Failure{}
	at := map[Failure]int{}
	for _, f := range fs {
		key := Failure{Kind: f.Kind, Status: f.Status}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, Failure{Kind: f.Kind, Status: f.Status, Example: f.Example})
		}
		out[i].N += max(f.N, 1)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].N != out[j].N {
			return out[i].N > out[j].N
		}
		return out[i].Label() < out[j].Label()
	})
	return out
}

// TurnSummary is one turn number of the calls (summary.by_turn), over the
// turn's requests that ended without an error; a figure none of them had
// is absent.
type TurnSummary struct {
	Turn            int    `json:"turn"`
	N               int    `json:"n"`
	TTFTMs          *Stats `json:"ttft_ms,omitempty"`
	FirstSentenceMs *Stats `json:"first_sentence_ms,omitempty"`
	PromptN         *Stats `json:"prompt_n,omitempty"`
	CacheN          *Stats `json:"cache_n,omitempty"`
}

// Stats is the stdlib's stats.summary of a non-empty list.
type Stats struct {
	N    int     `json:"n"`
	Min  float64 `json:"min"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Request is one row of stream_many's record (requests.jsonl; the CSV
// has the same columns, RequestColumns): one request, as it ended. Times
// count from the request's own t0 except StartMs and ScheduledMs (since
// its stream_many began: a load level) and RunMs; a figure the request
// never reached is null.
type Request struct {
	Index   int      `json:"index"`
	Warmup  bool     `json:"warmup"`
	StartMs *float64 `json:"start_ms"`
	// RunMs is the request's start since the whole run began (the script's
	// start: one time axis across the levels of a load).
	RunMs           *float64 `json:"run_ms"`
	ScheduledMs     *float64 `json:"scheduled_ms"`
	QueueMs         *float64 `json:"queue_ms"`
	TTFTMs          *float64 `json:"ttft_ms"`
	FirstSentenceMs *float64 `json:"first_sentence_ms"`
	// TotalMs is until the request ended, failed or not.
	TotalMs *float64 `json:"total_ms"`
	// StallMs is null for a request that failed.
	StallMs    *float64 `json:"stall_ms"`
	Chunks     int      `json:"chunks"`
	PromptN    *float64 `json:"prompt_n"`
	CacheN     *float64 `json:"cache_n"`
	PredictedN *float64 `json:"predicted_n"`
	ErrorKind  *string  `json:"error_kind"`
	Error      *string  `json:"error"`
	// FirstAudioMs and UnderrunMs are the answer as spoken (--tts): when
	// its first audio came and how long a speaker waited in the middle of
	// it; absent without a speech server or when no audio came.
	FirstAudioMs *float64 `json:"first_audio_ms,omitempty"`
	UnderrunMs   *float64 `json:"underrun_ms,omitempty"`
	// T0UnixMs is the wall clock (CLOCK_REALTIME, ms since the Unix epoch,
	// to the microsecond) at the request's t0, beside the monotonic
	// stamps: what lines up rows of different machines. Null when the
	// request never wrote its first byte.
	T0UnixMs *float64 `json:"t0_unix_ms"`
	// The members below are in the JSON row only (no CSV column): what a
	// level's record needs of each request besides the columns.
	//
	// Cut: the client stopped the request on purpose (on_chunk returned
	// false), not a failure; absent when not.
	Cut bool `json:"cut,omitempty"`
	// ErrorStatus is the HTTP status of an "http", "rate_limited" or
	// "tts_http" failure, or of a failed transcription that had one
	// ("stt_rate_limited", "stt_http", ...) (Failure.Status); absent
	// otherwise.
	ErrorStatus int `json:"error_status,omitempty"`
	// GapsMs are the gaps between the request's consecutive chunks, each
	// to the microsecond; absent with fewer than two chunks.
	GapsMs []float64 `json:"gaps_ms,omitempty"`
	// AudioMs is the length of the audio the answer was spoken as (every
	// sentence's), when it was sent to a speech server (--tts); absent
	// otherwise.
	AudioMs *float64 `json:"audio_ms,omitempty"`
	// CallerAudioMs is the length of the caller's audio sent to the
	// speech-to-text server for the turn (--stt), failed or not; absent
	// otherwise.
	CallerAudioMs *float64 `json:"caller_audio_ms,omitempty"`
	// MouthToEarMs, SttFinalMs and EndpointingMs are the turn as the
	// caller spoke it (--stt), turn.Parts' figures: the caller's speech
	// end (from the audio) to the answer's first audio, to the final
	// transcript, and to the speech stop the server said; SttQueueMs how
	// long the server says the transcription waited before it was worked
	// on; WER the transcript's word error rate against what was said.
	// Each absent without --stt or where the turn has none (no audio came,
	// a server that says no speech stop or no queue time).
	MouthToEarMs  *float64 `json:"mouth_to_ear_ms,omitempty"`
	SttFinalMs    *float64 `json:"stt_final_ms,omitempty"`
	EndpointingMs *float64 `json:"endpointing_ms,omitempty"`
	SttQueueMs    *float64 `json:"stt_queue_ms,omitempty"`
	WER           *float64 `json:"wer,omitempty"`
	// AudioAfterCancelMs is, on a turn of a speech-to-speech session
	// (load --realtime) whose answer the caller barged into, the ms of the
	// answer's audio that arrived after the client's response.cancel: what
	// the caller hears over their own voice. Absent otherwise.
	AudioAfterCancelMs *float64 `json:"audio_after_cancel_ms,omitempty"`
	// LateMs is how late the request began past the moment it could
	// begin: its due time (ScheduledMs), or, when a cap on calls at once
	// held its call back (--trace-max, --concurrency with --rate), the
	// moment a place came free. QueueMs is LateMs plus that hold. What a
	// client machine that cannot keep up shows; absent in rows written
	// before it.
	LateMs *float64 `json:"late_ms,omitempty"`
	// Ramp marks a request due during the level's ramp (--ramp): left out
	// of the level's figures (Warmup set too) unless --ramp-keep.
	Ramp bool `json:"ramp,omitempty"`
	// HistoryTurns is, on the first request of a call that started in
	// steady state (--steady-start), the turns its prompt holds as history
	// without having run them; absent otherwise.
	HistoryTurns int `json:"history_turns,omitempty"`
	// TraceCall and TraceLine are, in a replayed trace (--trace), the
	// trace's call id and the line of the file the request came from.
	TraceCall string `json:"trace_call,omitempty"`
	TraceLine int    `json:"trace_line,omitempty"`
	// TraceInputN is a Mooncake line's input_length (the prompt's tokens)
	// and TraceSharedN the tokens of its leading blocks that an earlier
	// request of the replay already sent (its hash_ids): what the server's
	// prefix cache can hold of it. Absent otherwise.
	TraceInputN  *float64 `json:"trace_input_n,omitempty"`
	TraceSharedN *float64 `json:"trace_shared_n,omitempty"`
	// IgnoreEOS is, where the trace fixed the answer's length
	// (output_length), whether the request asked the server to ignore
	// its end of text (false: the kind of server does not take
	// ignore_eos, so the answer may end sooner). Absent otherwise.
	IgnoreEOS *bool `json:"ignore_eos,omitempty"`
}

// Listened says whether the request's turn was spoken by the caller and
// sent to a speech-to-text server: it has caller_audio_ms.
func (r Request) Listened() bool { return r.CallerAudioMs != nil }

// Spoken says whether the request's answer was sent to a speech server:
// it has audio_ms, or (a row written before audio_ms) a spoken figure.
func (r Request) Spoken() bool {
	return r.AudioMs != nil || r.FirstAudioMs != nil || r.UnderrunMs != nil
}

// Metric is the request's figure of that name (SLOMetrics: the figures an
// SLO may be set on), nil when it has none.
func (r Request) Metric(name string) *float64 {
	switch name {
	case "ttft_ms":
		return r.TTFTMs
	case "first_sentence_ms":
		return r.FirstSentenceMs
	case "total_ms":
		return r.TotalMs
	case "first_audio_ms":
		return r.FirstAudioMs
	case "underrun_ms":
		return r.UnderrunMs
	case "mouth_to_ear_ms":
		return r.MouthToEarMs
	case "stt_final_ms":
		return r.SttFinalMs
	case "endpointing_ms":
		return r.EndpointingMs
	}
	return nil
}

// SLOMetrics are the figures an SLO (and a capacity search) may be set
// on, Request.Metric's names: the answer's, the spoken answer's (--tts)
// and the spoken turn's (--stt).
var SLOMetrics = []string{"ttft_ms", "first_sentence_ms", "total_ms", "first_audio_ms", "underrun_ms", "mouth_to_ear_ms", "stt_final_ms", "endpointing_ms"}

// RequestColumns are a request row's fields in CSV order, after the
// record's tags.
var RequestColumns = []string{"index", "warmup", "start_ms", "run_ms", "scheduled_ms", "queue_ms", "ttft_ms", "first_sentence_ms",
	"total_ms", "stall_ms", "chunks", "prompt_n", "cache_n", "predicted_n", "error_kind", "error", "first_audio_ms", "underrun_ms", "t0_unix_ms",
	"mouth_to_ear_ms", "stt_final_ms", "endpointing_ms", "stt_queue_ms", "wer", "late_ms"}

// Cells are the row's values in RequestColumns order, as a CSV writes
// them: "" for null, times to the microsecond.
func (r Request) Cells() []string {
	num := func(p *float64) string {
		if p == nil {
			return ""
		}
		return FormatMs(*p)
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return []string{fmt.Sprint(r.Index), fmt.Sprint(r.Warmup), num(r.StartMs), num(r.RunMs), num(r.ScheduledMs), num(r.QueueMs),
		num(r.TTFTMs), num(r.FirstSentenceMs), num(r.TotalMs), num(r.StallMs), fmt.Sprint(r.Chunks), num(r.PromptN),
		num(r.CacheN), num(r.PredictedN), str(r.ErrorKind), str(r.Error), num(r.FirstAudioMs), num(r.UnderrunMs), num(r.T0UnixMs),
		num(r.MouthToEarMs), num(r.SttFinalMs), num(r.EndpointingMs), num(r.SttQueueMs), num(r.WER), num(r.LateMs)}
}

// LoadRealtime is a load of speech-to-speech sessions' (load
// --realtime): the Realtime server (its URL as shown, never a secret),
// the session's model and voice where given, and the barge-in (every
// turn but a session's last barges in this long after its first audio
// delta; absent without one).
type LoadRealtime struct {
	Server       string   `json:"server"`
	Model        string   `json:"model,omitempty"`
	Voice        string   `json:"voice,omitempty"`
	BargeAfterMs *float64 `json:"barge_after_ms,omitempty"`
}

// LoadRequest is one row of `ttftlab load`'s requests.jsonl: the request
// with the tags the load gives it.
type LoadRequest struct {
	Level float64 `json:"level"`
	Call  int     `json:"call"`
	Turn  int     `json:"turn"`
	// Shard, Host and RunID are, in a sharded run, the shard that ran the
	// request, its machine and the run; absent otherwise.
	Shard *int   `json:"shard,omitempty"`
	Host  string `json:"host,omitempty"`
	RunID string `json:"run_id,omitempty"`
	Request
}

// ServerSample is one line of stream_many's watch file (server.jsonl):
// the server's own view at TMs since its stream_many began (a load
// level) and RunMs since the whole run began (one time axis across the
// levels); a figure the server did not give is null (/slots turned off,
// no --metrics).
type ServerSample struct {
	TMs float64 `json:"t_ms"`
	// RunMs is the sample's time since the whole run began, where TMs
	// may restart with each level; absent in files written before it.
	RunMs *float64 `json:"run_ms,omitempty"`
	// UnixMs is the sample's wall-clock time (ms since the Unix epoch), to
	// line it up with rows of other machines; absent in files written
	// before it.
	UnixMs *float64 `json:"unix_ms,omitempty"`
	// Kind is the kind of server the sample was read from (servers.Kind:
	// "llama.cpp", "vllm", ...), whose metric names were read.
	Kind               string   `json:"kind,omitempty"`
	SlotsProcessing    *int     `json:"slots_processing"`
	SlotsTotal         *int     `json:"slots_total"`
	RequestsProcessing *float64 `json:"requests_processing"`
	RequestsDeferred   *float64 `json:"requests_deferred"`
	PredictedPerS      *float64 `json:"predicted_per_s"`
}

// LoadServerSample is one line of `ttftlab load`'s server.jsonl.
type LoadServerSample struct {
	Level float64 `json:"level"`
	ServerSample
}

// Ms is a time in ms kept to the microsecond, as every artifact writes
// times; nil when x is not finite.
func Ms(x float64) *float64 {
	if Num(x) == nil {
		return nil
	}
	r := roundMs(x)
	return &r
}

// roundMs rounds to the microsecond. A magnitude beyond 2^53 µs has no
// finer digits to drop, and multiplying it could overflow: left as it is.
func roundMs(x float64) float64 {
	if math.Abs(x) >= 1<<53/1000 {
		return x
	}
	r := math.Round(x*1000) / 1000
	if r == 0 {
		r = 0 // no -0
	}
	return r
}

// FormatMs writes a finite time to the microsecond, shortest form.
func FormatMs(x float64) string {
	b, err := json.Marshal(roundMs(x))
	if err != nil {
		return ""
	}
	return string(b)
}

// ShowMs is a time as every console writes it: one decimal under 10 ms,
// whole ms above ("7.9", "812").
func ShowMs(x float64) string {
	if math.Abs(x) < 10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// WithTags encodes v (a record struct) as one JSON object with the
// members of tags first, in the order given; a tag named like one of v's
// fields is left out (the record's own field wins).
func WithTags(v any, tags [][2]any) ([]byte, error) {
	body, err := Marshal(v)
	if err != nil {
		return nil, err
	}
	var own map[string]json.RawMessage
	if err := json.Unmarshal(body, &own); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, kv := range tags {
		name := fmt.Sprint(kv[0])
		if _, clash := own[name]; clash {
			continue
		}
		k, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		val, ok := kv[1].(json.RawMessage)
		if !ok {
			if val, err = Marshal(kv[1]); err != nil {
				return nil, fmt.Errorf("tag %s: %w", name, err)
			}
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		b.WriteByte(',')
	}
	b.Write(body[1:])
	if b.Len() > 1 && bytes.HasSuffix(b.Bytes(), []byte(",}")) {
		b.Truncate(b.Len() - 2)
		b.WriteByte('}')
	}
	return b.Bytes(), nil
}

// Marshal is json.Marshal without its HTML escaping (a server's message
// reads as it was sent) and without the trailing newline.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// DecodeStrict decodes one JSON value into v, refusing a member v has no
// field for and anything after the value: the check that a writer and
// its record type agree.
func DecodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value")
	}
	return nil
}

// ReadLoadRequests reads the rows of a requests.jsonl from r, each line
// decoded strictly (DecodeStrict), blank lines skipped. Its error names
// the first line that does not decode by its number, and says so when
// that line is the last and lacks its newline: the file was cut while
// it was written (a full disk) or copied.
func ReadLoadRequests(r io.Reader) ([]LoadRequest, error) {
	var rows []LoadRequest
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return rows, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var row LoadRequest
			if derr := DecodeStrict(line, &row); derr != nil {
				if err == io.EOF {
					return rows, fmt.Errorf("line %d: %v: the file ends in the middle of this line, cut as it was written or copied", n, derr)
				}
				return rows, fmt.Errorf("line %d: %w", n, derr)
			}
			rows = append(rows, row)
		}
		if err == io.EOF {
			return rows, nil
		}
	}
}

// SettingDiff is a setting that differs between two runs: its JSON name
// and each side's value as JSON.
type SettingDiff struct{ Field, A, B string }

// Differences names every field of the settings that differs between a
// and b, in the struct's order, the fields skip names (by JSON name) left
// out.
func (a LoadSettings) Differences(b LoadSettings, skip ...string) []SettingDiff {
	var out []SettingDiff
	ra, rb := reflect.ValueOf(a), reflect.ValueOf(b)
	t := ra.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if slices.Contains(skip, name) {
			continue
		}
		ja, _ := Marshal(ra.Field(i).Interface())
		jb, _ := Marshal(rb.Field(i).Interface())
		if !bytes.Equal(ja, jb) {
			out = append(out, SettingDiff{Field: name, A: string(ja), B: string(jb)})
		}
	}
	return out
}

// Unsupported says whether an SLO's value on a level is marked "*" (on the
// console's SLO line and the report's SLO tile): its percentile is a thin
// tail of the requests it is over (ThinTail), or the level's distribution
// of the same figure cannot bound it (Dist.Unbounded), as the row above
// it marks that percentile.
func (s *ManySummary) Unsupported(v SLOVerdict) bool {
	if ThinTail(v.Percentile, v.N) {
		return true
	}
	d, ok := s.Metric(v.Metric)
	return ok && d.Unbounded(v.Percentile)
}
