package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/gguf"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/synth"
)

const modelUsage = `Usage:
  ttftlab model synth --out FILE [--preset NAME] [--quant q4_0|f16|f32] [--text FILE]
                      [--layers N --embd N --ffn N --heads N --kv-heads N --ctx N --vocab-pad N]

Writes a synthetic GGUF model: llama-server runs it at the real cost of its
shape, and its greedy answer is a fixed text repeated without end.
`

func cmdModel(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, modelUsage)
		return 2
	}
	switch args[0] {
	case "synth":
		return modelSynth(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, modelUsage)
		return 0
	default:
		fmt.Fprintf(stderr, "ttftlab model: unknown command %q\n\n%s", args[0], modelUsage)
		return 2
	}
}

// synthFlags are model synth's flags; the shape flags override the
// preset's values only when given.
type synthFlags struct {
	out, preset, quant, text string
	shape                    map[string]*int
}

func (s *synthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.out, "out", "", "GGUF file to write (required)")
	fs.StringVar(&s.preset, "preset", synth.DefaultPreset, "shape to start from: "+strings.Join(synth.PresetNames(), ", "))
	fs.StringVar(&s.quant, "quant", "", "type of the big matrices: q4_0, f16 or f32 (default: the preset's)")
	fs.StringVar(&s.text, "text", "", "file holding the answer text (default: a clinic assistant's answer)")
	s.shape = map[string]*int{}
	for _, f := range []struct{ name, usage string }{
		{"layers", "transformer blocks"}, {"embd", "embedding width"}, {"ffn", "feed-forward width"},
		{"heads", "attention heads"}, {"kv-heads", "key/value heads"}, {"ctx", "training context length recorded in the file"},
		{"vocab-pad", "pad the vocabulary to N tokens (0: no padding)"},
	} {
		s.shape[f.name] = fs.Int(f.name, 0, f.usage+" (default: the preset's)")
	}
}

// config applies the flags that were given to the preset.
func (s *synthFlags) config(fs *flag.FlagSet) (synth.Config, error) {
	cfg, err := synth.Preset(s.preset)
	if err != nil {
		return cfg, err
	}
	fields := map[string]*int{"layers": &cfg.Layers, "embd": &cfg.Embd, "ffn": &cfg.FFN, "heads": &cfg.Heads,
		"kv-heads": &cfg.KVHeads, "ctx": &cfg.Ctx, "vocab-pad": &cfg.VocabPad}
	custom := false
	fs.Visit(func(f *flag.Flag) {
		if v, ok := s.shape[f.Name]; ok {
			*fields[f.Name] = *v
			custom = true
		}
	})
	if custom {
		cfg.Label += "-custom"
	}
	if s.quant != "" {
		if cfg.Quant, err = gguf.ParseTensorType(s.quant); err != nil {
			return cfg, fmt.Errorf("--quant: %w", err)
		}
	}
	if s.text != "" {
		data, err := os.ReadFile(s.text)
		if err != nil {
			return cfg, fmt.Errorf("--text: %w", err)
		}
		cfg.Text = string(data)
	}
	return cfg, nil
}

func modelSynth(args []string, stdout, stderr io.Writer) int {
	var s synthFlags
	fs := newFlagSet("model synth", "ttftlab model synth --out FILE [flags]\n\n"+
		"Writes a synthetic GGUF model: llama-server runs it at the real cost of its shape, and its\n"+
		"greedy answer is a fixed text, repeated without end. Shape flags override the preset's values.", stderr)
	s.register(fs)
	if err := fs.Parse(args); err != nil {
		return parseErrCode(err)
	}
	if s.out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "ttftlab model synth: --out FILE is required and no other arguments are taken")
		fs.Usage()
		return 2
	}
	cfg, err := s.config(fs)
	if err == nil {
		err = writeSynth(cfg, s.out, stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "ttftlab model synth: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "serve it with: ttftlab server up --model %s\n", s.out)
	return 0
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
	describeSynth(w, cfg, m.Info(), abs, time.Since(start))
	return nil
}

func describeSynth(w io.Writer, cfg synth.Config, info synth.Info, path string, took time.Duration) {
	fmt.Fprintf(w, "wrote %s in %.1f s: %s, a synthetic model (real llama.cpp compute, scripted answer)\n",
		path, took.Seconds(), info.Name)
	fmt.Fprintf(w, "  shape:  %d blocks, embd %d, ffn %d, %d heads (%d KV), ctx %d, vocab %d, %s\n",
		cfg.Layers, cfg.Embd, cfg.FFN, cfg.Heads, cfg.KVHeads, cfg.Ctx, info.Vocab, cfg.Quant)
	fmt.Fprintf(w, "  size:   %.1f M parameters, %.1f MB\n", float64(info.Params)/1e6, float64(info.Bytes)/1e6)
	fmt.Fprintf(w, "  answer: %d tokens, repeated without end: %q\n", info.ScriptTokens, info.Script)
}

// registerSynth adds lab's --synth-preset flag.
func (a *autoServer) registerSynth(fs *flag.FlagSet) {
	fs.StringVar(&a.synthPreset, "synth-preset", synth.DefaultPreset,
		"with no server at --server and no --model: the synthetic model to build and serve ("+strings.Join(synth.PresetNames(), ", ")+")")
}

// synthModel is the lab's model when it has neither a server nor --model:
// a synthetic preset, built once into the user's cache folder.
func (a *autoServer) synthModel(server string, w io.Writer) (string, error) {
	// Without llama-server the model is of no use: say so before writing it.
	if _, err := llamaserver.Find(a.up.llamaServer); err != nil {
		return "", fmt.Errorf("no server answers at %s and no --model was given, so ttftlab would serve its synthetic model, but: %w", server, err)
	}
	preset := a.synthPreset
	if preset == "" {
		preset = synth.DefaultPreset
	}
	path, _, err := synth.Cached(preset, w)
	if err != nil {
		return "", fmt.Errorf("no server answers at %s and no --model was given, and the synthetic model could not be prepared: %w", server, err)
	}
	fmt.Fprintf(w, "no server answers at %s and no --model was given: serving the SYNTHETIC model %s (%s).\n"+
		"  Its timings are real llama.cpp work; its answer is a scripted text. For a real model pass --model FILE.gguf.\n",
		server, strings.TrimSuffix(filepath.Base(path), ".gguf"), path)
	return path, nil
}
