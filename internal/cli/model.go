package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/gguf"
	"ttftlab/internal/synth"
)

var modelCommands = &group{
	name:  "model",
	about: "ttftlab model: write model files",
	commands: []command{
		{"synth", "--out FILE [flags]", "write a synthetic GGUF model", newModelSynth},
	},
	notes: "A synthetic model runs on llama-server at the real cost of its shape; its greedy\nanswer is a fixed text, repeated without end.\n",
}

// modelSynthCmd is `ttftlab model synth --out FILE [flags]`.
type modelSynthCmd struct {
	env                      *env
	out, preset, quant, text string
	// shape holds the shape flags; they override the preset's values only
	// when given.
	shape map[string]*int
}

func newModelSynth(e *env) runner { return &modelSynthCmd{env: e} }

func (c *modelSynthCmd) register(fs *flagSet) {
	fs.StringVar(&c.out, "out", "", "GGUF `file` to write (required)")
	fs.StringVar(&c.preset, "preset", synth.DefaultPreset, "shape to start from: "+strings.Join(synth.PresetNames(), ", "))
	fs.StringVar(&c.quant, "quant", "", "type of the big matrices: q4_0, f16 or f32 (default: the preset's)")
	fs.StringVar(&c.text, "text", "", "`file` holding the answer text (default: a clinic assistant's answer)")
	c.shape = map[string]*int{}
	for _, f := range []struct{ name, usage string }{
		{"layers", "transformer blocks"}, {"embd", "embedding width"}, {"ffn", "feed-forward width"},
		{"heads", "attention heads"}, {"kv-heads", "key/value heads"}, {"ctx", "training context length recorded in the file"},
		{"vocab-pad", "pad the vocabulary to N tokens (0: no padding)"},
	} {
		c.shape[f.name] = fs.intFlag(f.name, 0, 0, 1<<22, f.usage+" (default: the preset's)")
	}
}

func (c *modelSynthCmd) Run(_ context.Context, args []string) error {
	fs := c.env.flags("--out FILE [flags]",
		"Writes a synthetic GGUF model: llama-server runs it at the real cost of its shape, and its\n"+
			"greedy answer is a fixed text, repeated without end. Shape flags override the preset's values.")
	c.register(fs)
	if err := fs.parse(args); err != nil {
		return err
	}
	if c.out == "" || fs.NArg() > 0 {
		return fs.usageErrf("--out FILE is required and no other arguments are taken")
	}
	cfg, err := c.config(fs)
	if err == nil {
		err = writeSynth(cfg, c.out, c.env.Out)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.env.Out, "serve it with: ttftlab server up --model %s\n", c.out)
	return nil
}

// config applies the flags that were given to the preset.
func (c *modelSynthCmd) config(fs *flagSet) (synth.Config, error) {
	cfg, err := synth.Preset(c.preset)
	if err != nil {
		return cfg, err
	}
	fields := map[string]*int{"layers": &cfg.Layers, "embd": &cfg.Embd, "ffn": &cfg.FFN, "heads": &cfg.Heads,
		"kv-heads": &cfg.KVHeads, "ctx": &cfg.Ctx, "vocab-pad": &cfg.VocabPad}
	custom := false
	fs.Visit(func(f *flag.Flag) {
		if v, ok := c.shape[f.Name]; ok {
			*fields[f.Name] = *v
			custom = true
		}
	})
	if custom {
		cfg.Label += "-custom"
	}
	if c.quant != "" {
		if cfg.Quant, err = gguf.ParseTensorType(c.quant); err != nil {
			return cfg, fmt.Errorf("--quant: %w", err)
		}
	}
	if c.text != "" {
		data, err := os.ReadFile(c.text)
		if err != nil {
			return cfg, fmt.Errorf("--text: %w", err)
		}
		cfg.Text = string(data)
	}
	if err := cfg.Validate(); err != nil {
		return cfg, fmt.Errorf("%w (the shape flags --layers, --embd, --ffn, --heads, --kv-heads, --vocab-pad set these)", err)
	}
	return cfg, nil
}

// writeSynth builds and writes one model, describing it on w.
func writeSynth(cfg synth.Config, path string, w io.Writer) error {
	m, err := synth.Build(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := m.WriteFile(path); err != nil {
		return err
	}
	abs, _ := filepath.Abs(path)
	info := m.Info()
	fmt.Fprintf(w, "wrote %s in %.1f s: %s, a synthetic model (real llama.cpp compute, scripted answer)\n",
		abs, time.Since(start).Seconds(), info.Name)
	fmt.Fprintf(w, "  shape:  %d blocks, embd %d, ffn %d, %d heads (%d KV), ctx %d, vocab %d, %s\n",
		cfg.Layers, cfg.Embd, cfg.FFN, cfg.Heads, cfg.KVHeads, cfg.Ctx, info.Vocab, cfg.Quant)
	fmt.Fprintf(w, "  size:   %.1f M parameters, %.1f MB\n", float64(info.Params)/1e6, float64(info.Bytes)/1e6)
	fmt.Fprintf(w, "  answer: %d tokens, repeated without end: %q\n", info.ScriptTokens, info.Script)
	return nil
}
