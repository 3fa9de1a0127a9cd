package synth

import (
	"fmt"
	"sort"
	"strings"

	"ttftlab/internal/gguf"
)

// Version changes whenever a preset with the default script would produce a
// different file; cached models (only those are cached) carry it in their
// file name, so a new version is rebuilt. A --text model is written on
// demand, never cached, so cutting CJK text into characters left it at 1.
const Version = 1

// Config is the shape of a synthetic model.
type Config struct {
	// Label names the configuration in the model name: a preset's name, with
	// "-custom" when its shape was changed.
	Label    string
	Layers   int     // transformer blocks
	Embd     int     // embedding width
	FFN      int     // feed-forward width
	Heads    int     // attention heads
	KVHeads  int     // key/value heads (grouped-query attention when fewer)
	Ctx      int     // training context recorded in the file
	VocabPad int     // pad the vocabulary to this many tokens (0: no padding)
	RopeBase float64 // RoPE frequency base
	Quant    gguf.TensorType
	// Text is the scripted answer; empty means DefaultScript.
	Text string
}

// presets are the named shapes. qwen2.5-0.5b copies the reference model's
// dimensions so its cost matches (it keeps a separate output matrix, where
// the real model ties it to the embeddings).
var presets = map[string]Config{
	"tiny": {Layers: 4, Embd: 256, FFN: 1024, Heads: 4, KVHeads: 2, Ctx: 4096,
		RopeBase: 10000, Quant: gguf.Q4_0},
	"small": {Layers: 30, Embd: 576, FFN: 1536, Heads: 9, KVHeads: 3, Ctx: 8192,
		VocabPad: 49152, RopeBase: 100000, Quant: gguf.Q4_0},
	"qwen2.5-0.5b": {Layers: 24, Embd: 896, FFN: 4864, Heads: 14, KVHeads: 2, Ctx: 32768,
		VocabPad: 151936, RopeBase: 1e6, Quant: gguf.Q4_0},
}

// DefaultPreset is what `ttftlab lab` synthesizes when it has no model.
const DefaultPreset = "small"

// Preset returns a named configuration.
func Preset(name string) (Config, error) {
	c, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
	}
	c.Label = name
	return c, nil
}

// PresetNames lists the presets, smallest first.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return presets[names[i]].params() < presets[names[j]].params() })
	return names
}

// params is a rough size for ordering presets.
func (c Config) params() int {
	return c.Layers * c.Embd * (2*c.Embd + 3*c.FFN)
}

// Name is the model's general.name. It says the model is synthetic: the
// lab's report relies on that.
func (c Config) Name() string {
	label := c.Label
	if label == "" {
		label = "custom"
	}
	return "ttftlab-synthetic-" + label + "-" + c.Quant.String()
}

// Validate rejects shapes llama.cpp cannot run or the writer cannot encode.
func (c Config) Validate() error {
	positive := []struct {
		name string
		v    int
	}{{"layers", c.Layers}, {"embd", c.Embd}, {"ffn", c.FFN}, {"heads", c.Heads}, {"kv-heads", c.KVHeads}, {"ctx", c.Ctx}}
	for _, p := range positive {
		if p.v <= 0 {
			return fmt.Errorf("%s must be positive, got %d", p.name, p.v)
		}
	}
	if c.Embd%c.Heads != 0 || (c.Embd/c.Heads)%2 != 0 {
		return fmt.Errorf("embd %d must be heads %d times an even head size", c.Embd, c.Heads)
	}
	if c.Heads%c.KVHeads != 0 {
		return fmt.Errorf("heads %d must be a multiple of kv-heads %d", c.Heads, c.KVHeads)
	}
	if c.Quant == gguf.Q4_0 && (c.Embd%32 != 0 || c.FFN%32 != 0) {
		return fmt.Errorf("q4_0 needs embd and ffn to be multiples of 32 (got %d and %d); f16 and f32 take any width", c.Embd, c.FFN)
	}
	if c.VocabPad < 0 || c.VocabPad > 1<<22 {
		return fmt.Errorf("vocab-pad %d is out of range (0 to %d)", c.VocabPad, 1<<22)
	}
	if c.RopeBase <= 0 {
		return fmt.Errorf("the RoPE base must be positive, got %g", c.RopeBase)
	}
	return nil
}
