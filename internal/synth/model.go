package synth

import (
	"fmt"
	"io"

	"ttftlab/internal/atomicfile"
	"ttftlab/internal/gguf"
)

// Model is a synthetic model ready to be written.
type Model struct {
	cfg    Config
	vocab  *vocab
	script *script
	layout *layout
	w      *gguf.Writer
	params int64
}

// Info describes a built model.
type Info struct {
	Name         string
	Params       int64 // number of weights
	Bytes        int64 // file size
	Vocab        int   // tokens, padding included
	ScriptTokens int   // tokens in one round of the answer
	Script       string
}

// Build lays out a model for cfg.
func Build(cfg Config) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	text := cfg.Text
	if text == "" {
		text = DefaultScript
	}
	s, err := newScript(text, cfg.Embd-slotsNeeded(0))
	if err != nil {
		return nil, err
	}
	v := newVocab()
	pieceIDs := make([]int, len(s.pieces))
	for i, p := range s.pieces {
		pieceIDs[i] = v.add(p, typeNormal)
	}
	firstID := v.add(s.first, typeNormal)
	for _, id := range append([]int{firstID}, pieceIDs...) {
		if v.types[id] != typeNormal {
			return nil, fmt.Errorf("the answer text cannot start with %q: that is a control token", v.tokens[id])
		}
	}
	if cfg.VocabPad > 0 && cfg.VocabPad < len(v.tokens) {
		return nil, fmt.Errorf("vocab-pad %d is below the vocabulary's own %d tokens", cfg.VocabPad, len(v.tokens))
	}
	v.pad(cfg.VocabPad)
	m := &Model{cfg: cfg, vocab: v, script: s, layout: newLayout(v, s, pieceIDs), w: gguf.NewWriter()}
	m.metadata()
	m.tensors()
	return m, nil
}

// Info describes the model.
func (m *Model) Info() Info {
	return Info{Name: m.cfg.Name(), Params: m.params, Bytes: m.w.Size(), Vocab: len(m.vocab.tokens),
		ScriptTokens: len(m.script.pieces), Script: m.script.text}
}

// Answer is the text of the first n tokens the model generates, whatever
// the prompt (greedy decoding).
func (m *Model) Answer(n int) string { return m.script.answer(n) }

// WriteTo writes the GGUF file.
func (m *Model) WriteTo(w io.Writer) (int64, error) { return m.w.WriteTo(w) }

// WriteFile writes the GGUF file atomically: a reader never sees half a
// model.
func (m *Model) WriteFile(path string) error {
	return atomicfile.WriteStream(path, 0o644, func(w io.Writer) error {
		_, err := m.w.WriteTo(w)
		return err
	})
}

func (m *Model) metadata() {
	c, w, v := m.cfg, m.w, m.vocab
	w.Set("general.architecture", "llama")
	w.Set("general.name", c.Name())
	w.Set("general.description", "ttftlab synthetic model: real llama.cpp compute, scripted answer")
	w.Set("general.file_type", fileType(c.Quant))
	w.Set("general.quantization_version", uint32(2))
	w.Set("llama.context_length", uint32(c.Ctx))
	w.Set("llama.embedding_length", uint32(c.Embd))
	w.Set("llama.block_count", uint32(c.Layers))
	w.Set("llama.feed_forward_length", uint32(c.FFN))
	w.Set("llama.attention.head_count", uint32(c.Heads))
	w.Set("llama.attention.head_count_kv", uint32(c.KVHeads))
	w.Set("llama.attention.layer_norm_rms_epsilon", float32(1e-6))
	w.Set("llama.rope.freq_base", float32(c.RopeBase))
	w.Set("llama.rope.dimension_count", uint32(c.Embd/c.Heads))
	w.Set("llama.vocab_size", uint32(len(v.tokens)))
	w.Set("tokenizer.ggml.model", "llama")
	w.Set("tokenizer.ggml.tokens", v.tokens)
	w.Set("tokenizer.ggml.scores", v.scores)
	w.Set("tokenizer.ggml.token_type", v.types)
	w.Set("tokenizer.ggml.unknown_token_id", uint32(idUnk))
	w.Set("tokenizer.ggml.bos_token_id", uint32(idBOS))
	w.Set("tokenizer.ggml.eos_token_id", uint32(idEOS))
	w.Set("tokenizer.ggml.add_bos_token", true)
	w.Set("tokenizer.ggml.add_eos_token", false)
	w.Set("tokenizer.chat_template", chatTemplate(c.Name()))
}

// fileType is llama.cpp's general.file_type for a model whose big matrices
// are of type t.
func fileType(t gguf.TensorType) uint32 {
	switch t {
	case gguf.F16:
		return 1
	case gguf.Q4_0:
		return 2
	}
	return 0
}

func (m *Model) tensors() {
	c, l := m.cfg, m.layout
	embd, ffn, vocab := uint64(c.Embd), uint64(c.FFN), uint64(len(m.vocab.tokens))
	kv := uint64(c.KVHeads * (c.Embd / c.Heads))
	m.add("token_embd.weight", c.Quant, []uint64{embd, vocab}, l.embedding)
	for b := 0; b < c.Layers; b++ {
		p := fmt.Sprintf("blk.%d.", b)
		m.add(p+"attn_norm.weight", gguf.F32, []uint64{embd}, ones)
		m.add(p+"attn_q.weight", c.Quant, []uint64{embd, embd}, noise(p+"attn_q"))
		m.add(p+"attn_k.weight", c.Quant, []uint64{embd, kv}, noise(p+"attn_k"))
		m.add(p+"attn_v.weight", c.Quant, []uint64{embd, kv}, noise(p+"attn_v"))
		m.add(p+"attn_output.weight", c.Quant, []uint64{embd, embd}, zeros)
		m.add(p+"ffn_norm.weight", gguf.F32, []uint64{embd}, ones)
		m.add(p+"ffn_gate.weight", c.Quant, []uint64{embd, ffn}, noise(p+"ffn_gate"))
		m.add(p+"ffn_up.weight", c.Quant, []uint64{embd, ffn}, noise(p+"ffn_up"))
		m.add(p+"ffn_down.weight", c.Quant, []uint64{ffn, embd}, zeros)
	}
	m.add("output_norm.weight", gguf.F32, []uint64{embd}, ones)
	m.add("output.weight", c.Quant, []uint64{embd, vocab}, l.output)
}

func (m *Model) add(name string, t gguf.TensorType, dims []uint64, rows gguf.RowFunc) {
	n := int64(1)
	for _, d := range dims {
		n *= int64(d)
	}
	m.params += n
	m.w.AddTensor(name, t, dims, rows)
}
