package check

import (
	"encoding/json"
	"errors"
	"fmt"
)

// The lab's output files, decoded. Numbers stay float64 exactly as
// encoding/json parsed them, so values the lab copied compare exactly.

type run struct{ ttftMs, totalMs, tokens float64 }

type ttftFile struct {
	runs              []run
	ttftP50, totalP50 float64
}

type prefillRow struct{ docs, promptN, promptMs, ttftMs float64 }

type cacheRun struct {
	promptN, ttftMs float64
	cacheN          *float64
}

type cacheFile struct{ first, second, changedPrefix cacheRun }

type sentenceFile struct {
	ttftMs, firstSentenceMs, totalMs float64
	firstSentence, text              string
	pacing                           *pacingFile
}

type cancelFile struct {
	maxTokens, receivedTokens, closedAtMs, slotIdleAfterMs float64
	logCancelTask, done, cut                               *bool
	// logFrom is where this run's lines began in the server log; nil when
	// the lab had no log.
	logFrom *logMark
}

// logMark is a log_mark(): the log file (by inode) and its size then.
type logMark struct {
	path          string
	offset, inode float64
}

// propsFile is what the checks need from /props: which model ran.
type propsFile struct {
	modelPath    *string // nil when the server did not say
	chatTemplate string
	nCtx, slots  float64
}

// reportServer is report.json's server block (absent in older reports).
type reportServer struct {
	nCtx, slots *float64 // nil for null
}

// reportModel is report.json's model block.
type reportModel struct {
	name, path *string // nil for JSON null
	synthetic  bool
}

// reportFields are report.json's numeric fields.
var reportFields = []string{
	"ttft_p50_ms", "total_p50_ms", "ttft_12docs_ms", "prompt_n_12docs",
	"cache_ttft_ms", "first_sentence_ms", "cancel_idle_ms",
	"speech_stall_ms", "bargein_resumed_ttft_ms", "bargein_cold_ttft_ms",
	"prefix_front_prompt_n", "prefix_last_prompt_n",
}

// decodeJSON parses one JSON value, saying where the syntax breaks.
func decodeJSON(data []byte) (node, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return node{}, fmt.Errorf("not valid JSON at byte %d: %w", se.Offset, err)
		}
		return node{}, fmt.Errorf("not valid JSON: %w", err)
	}
	return root(v), nil
}

func (l *lab) loadHealth(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	l.healthStatus = p.str(n.key("status"))
	return p.err()
}

func (l *lab) loadProps(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	if p.obj(n.key("default_generation_settings")) {
		l.props.nCtx = p.num(n.key("default_generation_settings").key("n_ctx"))
	}
	l.props.slots = p.num(n.key("total_slots"))
	l.props.modelPath = p.optStr(n.key("model_path"))
	if t := p.optStr(n.key("chat_template")); t != nil {
		l.props.chatTemplate = *t
	}
	return p.err()
}

func (l *lab) loadTTFT(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	runs := n.key("runs")
	for i := range p.arr(runs) {
		r := runs.at(i)
		if !p.obj(r) {
			continue
		}
		l.ttft.runs = append(l.ttft.runs, run{
			ttftMs:  p.num(r.key("ttft_ms")),
			totalMs: p.num(r.key("total_ms")),
			tokens:  p.num(r.key("tokens")),
		})
	}
	l.ttft.ttftP50 = p.num(n.key("ttft_p50"))
	l.ttft.totalP50 = p.num(n.key("total_p50"))
	return p.err()
}

func (l *lab) loadPrefill(n node) error {
	var p parser
	for i := range p.arr(n) {
		r := n.at(i)
		if !p.obj(r) {
			continue
		}
		l.prefill = append(l.prefill, prefillRow{
			docs:     p.num(r.key("docs")),
			promptN:  p.num(r.key("prompt_n")),
			promptMs: p.num(r.key("prompt_ms")),
			ttftMs:   p.num(r.key("ttft_ms")),
		})
	}
	return p.err()
}

func (l *lab) loadCache(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	read := func(name string) cacheRun {
		r := n.key(name)
		if !p.obj(r) {
			return cacheRun{}
		}
		return cacheRun{
			promptN: p.num(r.key("prompt_n")),
			ttftMs:  p.num(r.key("ttft_ms")),
			cacheN:  p.optNum(r.key("cache_n")),
		}
	}
	l.cache = cacheFile{first: read("first"), second: read("second"), changedPrefix: read("changed_prefix")}
	return p.err()
}

func (l *lab) loadSentence(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	l.sentence = sentenceFile{
		ttftMs:          p.num(n.key("ttft_ms")),
		firstSentenceMs: p.num(n.key("first_sentence_ms")),
		totalMs:         p.num(n.key("total_ms")),
		firstSentence:   p.str(n.key("first_sentence")),
		text:            p.str(n.key("text")),
		pacing:          p.pacing(n.key("pacing")),
	}
	return p.err()
}

func (l *lab) loadCancel(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	l.cancel = cancelFile{
		maxTokens:       p.num(n.key("max_tokens")),
		receivedTokens:  p.num(n.key("received_tokens")),
		closedAtMs:      p.num(n.key("closed_at_ms")),
		slotIdleAfterMs: p.num(n.key("slot_idle_after_ms")),
		logCancelTask:   p.optBool(n.key("log_cancel_task")),
		done:            p.optBool(n.key("done")),
		cut:             p.optBool(n.key("cut")),
	}
	if m := n.key("log_from"); m.present {
		l.cancel.logFrom = &logMark{path: p.str(m.key("path")), offset: p.num(m.key("offset")), inode: p.num(m.key("inode"))}
	}
	// attempts, when present, lists every try (the lab retries when a fast
	// server finishes before the cut); its shape is informative only.
	p.optNum(n.key("cut_after_ms"))
	p.optNum(n.key("total_ms"))
	return p.err()
}

func (l *lab) loadReport(n node) error {
	var p parser
	if !p.obj(n) {
		return p.err()
	}
	l.report = map[string]float64{}
	for _, k := range reportFields {
		l.report[k] = p.num(n.key(k))
	}
	if s := n.key("server"); s.present && p.obj(s) {
		l.reportServer = &reportServer{nCtx: p.optNum(s.key("n_ctx")), slots: p.optNum(s.key("slots"))}
	}
	m := n.key("model")
	if p.obj(m) {
		l.reportModel = reportModel{
			name:      p.strOrNull(m.key("name")),
			path:      p.strOrNull(m.key("path")),
			synthetic: p.boolean(m.key("synthetic")),
		}
	}
	return p.err()
}
