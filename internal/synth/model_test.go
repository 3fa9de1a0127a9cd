package synth

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/gguf"
)

func buildPreset(t testing.TB, name string, change func(*Config)) *Model {
	t.Helper()
	cfg, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	if change != nil {
		change(&cfg)
	}
	m, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// greedyNext follows the residual path in plain float math: the token's
// embedding (the blocks add attn_output and ffn_down products, which are
// zero), the final RMSNorm, then the output matrix. It returns the argmax
// and how far it leads the runner-up.
func greedyNext(m *Model, id int) (next int, margin float64) {
	embd := m.cfg.Embd
	x := make([]float32, embd)
	m.layout.embedding(id, x)
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	scale := 1 / math.Sqrt(ss/float64(embd)+1e-6)
	row := make([]float32, embd)
	best, second := math.Inf(-1), math.Inf(-1)
	for r := range m.vocab.tokens {
		clear(row)
		m.layout.output(r, row)
		var logit float64
		for j := range row {
			logit += float64(row[j]) * float64(x[j]) * scale
		}
		switch {
		case logit > best:
			best, second, next = logit, best, r
		case logit > second:
			second = logit
		}
	}
	return next, best - second
}

func TestGreedyDecodingFollowsTheScript(t *testing.T) {
	cases := map[string]*Model{
		"tiny": buildPreset(t, "tiny", nil),
		// Far more tokens than directions, and a text with repeated words.
		"narrow padded": buildPreset(t, "tiny", func(c *Config) {
			c.Embd, c.Heads, c.KVHeads, c.VocabPad = 32, 2, 1, 20000
			c.Text = "the cat saw the dog and the dog saw the cat"
		}),
		// CJK: one piece per character or two; the second 请 must not be
		// the token the answer begins with.
		"chinese":  buildPreset(t, "tiny", func(c *Config) { c.Text = zhScript }),
		"korean":   buildPreset(t, "tiny", func(c *Config) { c.Text = koScript }),
		"japanese": buildPreset(t, "tiny", func(c *Config) { c.Text = jaScript }),
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			// Any prompt token that is not part of the answer (here: the
			// newline byte that ends the chat prompt, and a padding token)
			// leads to the first piece.
			start := []int{m.vocab.ids["<0x0A>"], idBOS, m.vocab.ids[imStart]}
			if len(m.vocab.tokens) > 19999 {
				start = append(start, 19999)
			}
			for _, id := range start {
				if next, _ := greedyNext(m, id); next != m.vocab.ids[m.script.first] {
					t.Fatalf("after %q comes %q, want the first piece %q", m.vocab.tokens[id], m.vocab.tokens[next], m.script.first)
				}
			}
			id := m.vocab.ids[m.script.first]
			text := strings.ReplaceAll(m.script.first, space, " ")
			n := 2*len(m.script.pieces) + 1
			for i := 1; i < n; i++ {
				next, margin := greedyNext(m, id)
				if margin < 1 {
					t.Fatalf("after %q the winner %q leads by only %g", m.vocab.tokens[id], m.vocab.tokens[next], margin)
				}
				if m.vocab.types[next] != typeNormal {
					t.Fatalf("after %q comes a non-text token %q", m.vocab.tokens[id], m.vocab.tokens[next])
				}
				text += strings.ReplaceAll(m.vocab.tokens[next], space, " ")
				id = next
			}
			if want := m.Answer(n); text != want {
				t.Errorf("greedy text %q\nwant        %q", text, want)
			}
		})
	}
}

func TestVocabulary(t *testing.T) {
	m := buildPreset(t, "tiny", nil)
	v := m.vocab
	if len(v.ids) != len(v.tokens) || len(v.scores) != len(v.tokens) || len(v.types) != len(v.tokens) {
		t.Fatalf("tokens %d, unique %d, scores %d, types %d", len(v.tokens), len(v.ids), len(v.scores), len(v.types))
	}
	for b := 0; b < 256; b++ {
		id, ok := v.ids[byteToken(b)]
		if !ok || v.types[id] != typeByte {
			t.Fatalf("byte token %s missing or mistyped", byteToken(b))
		}
	}
	for _, c := range []string{"<unk>", "<s>", "</s>", imStart, imEnd} {
		if _, ok := v.ids[c]; !ok {
			t.Errorf("%s missing", c)
		}
	}
	if v.tokens[idUnk] != "<unk>" || v.tokens[idBOS] != "<s>" || v.tokens[idEOS] != "</s>" {
		t.Errorf("fixed ids: %q %q %q", v.tokens[0], v.tokens[1], v.tokens[2])
	}
	// Every prefix of a word piece is a token, so the tokenizer can build it.
	for _, w := range []string{space + "Please", space + "appointment", "Saturday"} {
		for i := range w {
			if i > 0 && !strings.HasSuffix(w[:i], "\xe2") && !strings.HasSuffix(w[:i], "\xe2\x96") {
				if _, ok := v.ids[w[:i]]; !ok {
					t.Errorf("%q lacks its prefix %q", w, w[:i])
				}
			}
		}
	}
	padded := buildPreset(t, "tiny", func(c *Config) { c.VocabPad = 9000 })
	if n := len(padded.vocab.tokens); n != 9000 || padded.vocab.types[8999] != typeUnused {
		t.Errorf("padded vocabulary has %d tokens, last of type %d", n, padded.vocab.types[n-1])
	}
}

func byteToken(b int) string {
	const hex = "0123456789ABCDEF"
	return "<0x" + string(hex[b>>4]) + string(hex[b&15]) + ">"
}

func TestPresetShapes(t *testing.T) {
	if got := strings.Join(PresetNames(), ","); got != "tiny,small,qwen2.5-0.5b" {
		t.Errorf("PresetNames = %s", got)
	}
	m := buildPreset(t, "qwen2.5-0.5b", nil)
	// The reference model's matrices, with a separate output matrix.
	const vocab, embd, ffn, kv, layers = 151936, 896, 4864, 2 * 64, 24
	want := int64(2*vocab*embd + layers*(2*embd*embd+2*embd*kv+3*embd*ffn+2*embd) + embd)
	if info := m.Info(); info.Params != want || info.Vocab != vocab {
		t.Errorf("qwen2.5-0.5b: %d params, vocab %d; want %d, %d", info.Params, info.Vocab, want, vocab)
	}
	if _, err := Preset("huge"); err == nil || !strings.Contains(err.Error(), "tiny, small, qwen2.5-0.5b") {
		t.Errorf("unknown preset error: %v", err)
	}
}

func TestBuildRefusesBadShapes(t *testing.T) {
	cases := []struct {
		change func(*Config)
		want   string
	}{
		{func(c *Config) { c.Heads = 3 }, "embd 256 must be heads 3 times"},
		{func(c *Config) { c.KVHeads = 3 }, "multiple of kv-heads 3"},
		{func(c *Config) { c.FFN = 100 }, "multiples of 32"},
		{func(c *Config) { c.Layers = 0 }, "layers must be positive"},
		{func(c *Config) { c.VocabPad = 100 }, "below the vocabulary's own"},
		{func(c *Config) { c.Embd, c.Heads, c.KVHeads, c.Quant = 2, 1, 1, gguf.F32 }, "the embedding width bounds them"},
		{func(c *Config) { c.Text = "<|im_end|> goodbye" }, "control token"},
	}
	for _, c := range cases {
		cfg, _ := Preset("tiny")
		c.change(&cfg)
		if _, err := Build(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestWriteIsDeterministicAndSized(t *testing.T) {
	digest := func() ([32]byte, int) {
		var buf bytes.Buffer
		m := buildPreset(t, "tiny", nil)
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		if int64(buf.Len()) != m.Info().Bytes {
			t.Errorf("wrote %d bytes, Info says %d", buf.Len(), m.Info().Bytes)
		}
		if !bytes.Contains(buf.Bytes(), []byte("ttftlab-synthetic-tiny-q4_0")) {
			t.Errorf("the file does not carry the model's name")
		}
		return sha256.Sum256(buf.Bytes()), buf.Len()
	}
	a, n := digest()
	b, _ := digest()
	if a != b || n == 0 {
		t.Errorf("two builds of the same config differ")
	}
}

func TestCached(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	var progress bytes.Buffer
	path, built, err := Cached("tiny", &progress)
	if err != nil || !built {
		t.Fatalf("first call: built %v, %v", built, err)
	}
	if filepath.Base(path) != fmt.Sprintf("ttftlab-synthetic-tiny-q4_0-v%d.gguf", Version) || !strings.Contains(progress.String(), path) {
		t.Errorf("path %s, progress %q", path, progress.String())
	}
	if _, built, err = Cached("tiny", nil); err != nil || built {
		t.Errorf("second call rebuilt (%v) or failed: %v", built, err)
	}
	if err := os.Truncate(path, 1000); err != nil {
		t.Fatal(err)
	}
	if _, built, err = Cached("tiny", nil); err != nil || !built {
		t.Errorf("a truncated file was not rebuilt: %v %v", built, err)
	}
	if _, _, err := Cached("nope", nil); err == nil || !strings.Contains(err.Error(), "unknown preset") {
		t.Errorf("unknown preset: %v", err)
	}
}
