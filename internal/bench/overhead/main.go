// Command overhead measures a client's own share of TTFT against a real
// llama-server: client TTFT minus the server's prompt_ms, for the same
// requests sent in turn by ttftlab (stream() in a Lua VM) and by other
// clients (bench/pyclient.py --ttft, bench/naiveclient --ttft). What is
// left after prompt_ms is HTTP, templating, tokenising, sampling the first
// token and the client's own delay; the server's part is the same for
// every client, so differences between clients are the clients'.
//
//	go run ./bench/overhead --model ../shared/models/stories260K.gguf --runs 30 \
//	    --client "python=python3 bench/pyclient.py" --client "naive-go=/tmp/naiveclient"
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/atomicfile"
	"ttftlab/internal/llamaserver"
	"ttftlab/runtime"
)

const (
	system   = "You are a clinic phone assistant. Answer in one short sentence."
	question = "What should a new patient bring?"
	tokens   = 16
)

// body is the request every client sends, exactly as ttftlab's stream()
// builds it for the options in ttftlabScript.
func body() map[string]any {
	return map[string]any{
		"messages": []map[string]string{{"role": "system", "content": system}, {"role": "user", "content": question}},
		"stream":   true, "max_tokens": tokens, "temperature": 0, "seed": 7, "cache_prompt": false,
	}
}

var ttftlabScript = fmt.Sprintf(`
function measure()
  local _, _, timings, info = stream({{role = "system", content = %q}, {role = "user", content = %q}},
    {max_tokens = %d, cache_prompt = false})
  report(info.ttft_ms, timings.prompt_ms)
end`, system, question, tokens)

// sample is one request's figures.
type sample struct {
	TTFTMs   float64 `json:"ttft_ms"`
	PromptMs float64 `json:"prompt_ms"`
}

// client sends one request and returns its sample.
type client struct {
	name    string
	command string
	measure func(ctx context.Context, url string) (sample, error)
}

func main() {
	defModel := os.Getenv("TTFTLAB_MODEL")
	if defModel == "" {
		defModel = filepath.Join("..", "shared", "models", "stories260K.gguf")
	}
	model := flag.String("model", defModel, "GGUF model for the llama-server this program starts (env TTFTLAB_MODEL)")
	server := flag.String("server", "", "use this running server instead of starting one")
	runs := flag.Int("runs", 30, "requests per client")
	out := flag.String("out", "", "also write the results as JSON to this file")
	var others []string
	flag.Func("client", "another client, `NAME=COMMAND`, run as COMMAND --ttft URL BODY_JSON (repeatable)", func(s string) error {
		others = append(others, s)
		return nil
	})
	flag.Parse()
	if err := run(*model, *server, *runs, others, *out); err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
}

func run(model, url string, runs int, others []string, out string) error {
	ctx := context.Background()
	if url == "" {
		srv, err := startServer(ctx, model)
		if err != nil {
			return err
		}
		defer srv.Stop(10 * time.Second)
		url = srv.URL
	}
	clients, closeVM, err := buildClients(ctx, url, others)
	if err != nil {
		return err
	}
	defer closeVM()
	results := map[string][]sample{}
	// Warm-up: the first request after start-up loads caches for everyone.
	clients[0].measure(ctx, url)
	for i := range runs {
		// Rotate the order so no client always follows the same one.
		for k := range clients {
			c := clients[(i+k)%len(clients)]
			s, err := c.measure(ctx, url)
			if err != nil {
				return fmt.Errorf("%s, run %d: %w", c.name, i+1, err)
			}
			results[c.name] = append(results[c.name], s)
		}
	}
	report(os.Stdout, clients, results, runs)
	if out != "" {
		data, _ := json.MarshalIndent(results, "", "  ")
		return atomicfile.Write(out, append(data, '\n'), 0o644)
	}
	return nil
}

func startServer(ctx context.Context, model string) (*llamaserver.Server, error) {
	bin, err := llamaserver.Find("")
	if err != nil {
		return nil, err
	}
	port, err := llamaserver.FreePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("overhead-llama-%d.log", port))
	return llamaserver.Start(ctx, llamaserver.Options{Binary: bin, Model: model, Port: port, LogPath: logPath})
}

// buildClients returns ttftlab's client first, then the others.
func buildClients(ctx context.Context, url string, others []string) ([]client, func(), error) {
	tl, closeVM, err := ttftlabClient(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	clients := []client{tl}
	payload, _ := json.Marshal(body())
	for _, o := range others {
		name, cmd, ok := strings.Cut(o, "=")
		fields := strings.Fields(cmd)
		if !ok || len(fields) == 0 {
			closeVM()
			return nil, nil, fmt.Errorf("client %q: want NAME=COMMAND", o)
		}
		clients = append(clients, client{name: name, command: cmd, measure: func(ctx context.Context, url string) (sample, error) {
			return external(ctx, fields, url, string(payload))
		}})
	}
	return clients, closeVM, nil
}

// ttftlabClient measures through the runtime's stream(), as a script does.
func ttftlabClient(ctx context.Context, url string) (client, func(), error) {
	vm, err := runtime.New(ctx, runtime.Config{Server: url, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		return client{}, nil, err
	}
	var got sample
	L := vm.State()
	L.SetGlobal("report", L.NewFunction(func(L *lua.LState) int {
		got = sample{TTFTMs: float64(L.CheckNumber(1)), PromptMs: float64(L.CheckNumber(2))}
		return 0
	}))
	if err := vm.RunString(ttftlabScript, "overhead.lua"); err != nil {
		vm.Close()
		return client{}, nil, err
	}
	measure := func(ctx context.Context, url string) (sample, error) {
		got = sample{}
		err := vm.RunString("measure()", "overhead.lua")
		return got, err
	}
	return client{name: "ttftlab", command: "stream() in a Lua VM", measure: measure}, vm.Close, nil
}

// external runs COMMAND --ttft URL BODY_JSON and reads its JSON line.
func external(ctx context.Context, cmd []string, url, payload string) (sample, error) {
	args := append(append([]string{}, cmd[1:]...), "--ttft", url, payload)
	out, err := exec.CommandContext(ctx, cmd[0], args...).Output()
	if err != nil {
		return sample{}, fmt.Errorf("%s: %w", strings.Join(cmd, " "), err)
	}
	var r struct {
		TTFTMs  *float64       `json:"ttft_ms"`
		Timings map[string]any `json:"timings"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return sample{}, fmt.Errorf("%s printed %q: %w", cmd[0], out, err)
	}
	prompt, ok := r.Timings["prompt_ms"].(float64)
	if r.TTFTMs == nil || !ok {
		return sample{}, fmt.Errorf("%s printed no ttft_ms or timings.prompt_ms: %s", cmd[0], out)
	}
	return sample{TTFTMs: *r.TTFTMs, PromptMs: prompt}, nil
}

func report(w io.Writer, clients []client, results map[string][]sample, runs int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\truns\tTTFT p50 ms\tprompt_ms p50\tTTFT-prompt_ms p50\tp90\tmin\t")
	for _, c := range clients {
		s := results[c.name]
		var ttft, prompt, over []float64
		for _, x := range s {
			ttft, prompt, over = append(ttft, x.TTFTMs), append(prompt, x.PromptMs), append(over, x.TTFTMs-x.PromptMs)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", c.name, len(s),
			pct(ttft, 50), pct(prompt, 50), pct(over, 50), pct(over, 90), pct(over, 0))
	}
	tw.Flush()
}

// pct is the nearest-rank percentile p of v (p 0: the minimum).
func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	i := int(float64(len(v))*p/100+0.999999) - 1
	return v[max(i, 0)]
}
