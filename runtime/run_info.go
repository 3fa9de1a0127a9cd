package runtime

import (
	"context"
	"encoding/json"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// syntheticModel is how a synthetic model (`ttftlab model synth`) names
// itself in its chat template.
var syntheticModel = regexp.MustCompile(`ttftlab synthetic model ([^\s:]+):`)

// ModelOf is the model the numbers belong to, from the server's /props
// (nil or empty for a server without it): a synthetic model by the name
// its chat template gives, any other by its alias or file name, and a
// server without /props (vLLM, SGLang, Ollama, a hosted API) by the model
// every request asks for (ep.Model: --model, or the one /v1/models
// lists).
func ModelOf(props map[string]any, ep *endpoint.Endpoint) artifact.RunModel {
	var m artifact.RunModel
	p, _ := props["model_path"].(string)
	if _, ok := props["model_path"].(string); ok {
		m.Path = &p
	}
	name := ""
	if tmpl, ok := props["chat_template"].(string); ok {
		if s := syntheticModel.FindStringSubmatch(tmpl); s != nil {
			name, m.Synthetic = s[1], true
		}
	}
	if alias, ok := props["model_alias"].(string); name == "" && ok && (m.Path == nil || alias != p) {
		name = alias
	}
	if name == "" && m.Path != nil && !strings.HasSuffix(p, "/") {
		name = path.Base(p)
		if base := strings.TrimSuffix(name, ".gguf"); base != "" {
			name = base
		}
	}
	if name == "" && ep != nil {
		name = ep.Model
	}
	if name != "" {
		m.Name = &name
	}
	return m
}

// ServerOf is the server's settings: the context and slots /props reports
// (props, nil without it), and for a server ttftlab started (args, the
// command line the registry keeps; nil otherwise) its threads and
// host-memory cache; how ttftlab reached it (the key only as "set from
// SOURCE"), and its kind.
func ServerOf(props map[string]any, args []string, ep *endpoint.Endpoint, kind servers.Kind) artifact.RunServer {
	num := func(v any) *float64 {
		if f, ok := v.(float64); ok {
			return &f
		}
		return nil
	}
	s := artifact.RunServer{Slots: num(props["total_slots"]), Kind: string(kind)}
	if gen, ok := props["default_generation_settings"].(map[string]any); ok {
		s.NCtx = num(gen["n_ctx"])
	}
	if b, ok := props["build_info"].(string); ok {
		s.Build = &b
	}
	if args != nil {
		s.Args = args
		s.Threads = argAfter(args, "-t", "--threads")
		s.CacheRAM = argAfter(args, "--cache-ram", "-cram")
	}
	if ep != nil {
		s.Endpoint = &artifact.RunEndpoint{URL: ep.Base, APIKey: ep.KeyShown(), Headers: ep.Shown(), CACert: ep.CACert, Insecure: ep.Insecure}
		if ep.Model != "" {
			s.Endpoint.Model, s.Endpoint.ModelFrom = ep.Model, ep.ModelSource
		}
	}
	return s
}

// argAfter is the number after the first of names in a command line; nil
// when none is there or it is not a number.
func argAfter(args []string, names ...string) *float64 {
	for i := 0; i < len(args)-1; i++ {
		for _, n := range names {
			if args[i] == n {
				if f, err := strconv.ParseFloat(args[i+1], 64); err == nil {
					return &f
				}
				return nil
			}
		}
	}
	return nil
}

// trackedArgs is the command line ttftlab started the server at SERVER
// with, nil when ttftlab did not start it.
func (vm *VM) trackedArgs() []string {
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		return nil
	}
	st := reg.ForURL(vm.cfg.Server)
	if st == nil {
		return nil
	}
	return append([]string{}, st.Args...)
}

// RunInfo is what a run measured: the model and the server's settings
// (ModelOf, ServerOf) from the server at SERVER, whose /props it reads
// when it is llama.cpp's; and the server's kind.
func (vm *VM) RunInfo(ctx context.Context) (artifact.RunModel, artifact.RunServer, servers.Kind, error) {
	vm.L.SetContext(ctx)
	defer vm.L.SetContext(vm.ctx)
	kind := servers.CapsOf(vm.req.Kind(vm.L).Kind).Kind
	props := map[string]any{}
	if kind == servers.LlamaCpp {
		url := vm.req.URL("/props")
		status, body, err := stream.Get(ctx, url, vm.req.CallOptions(url))
		if err == nil && status != http.StatusOK {
			err = &statusErr{vm.req.StatusError(url, status, body, "")}
		}
		if err == nil {
			err = json.Unmarshal(body, &props)
		}
		if err != nil {
			return artifact.RunModel{}, artifact.RunServer{}, kind, err
		}
	}
	return ModelOf(props, vm.endpoint()), ServerOf(props, vm.trackedArgs(), vm.endpoint(), kind), kind, nil
}

// statusErr is a GET that did not answer 200, as statusError says it.
type statusErr struct{ msg string }

func (e *statusErr) Error() string { return "props: " + e.msg }

// runInfo is run_info([props]) -> {model =, server =}: the records of
// RunInfo (load.json's and report.json's model and server) from props,
// the server's /props as read earlier (the lab's props.json; nil or {}
// for a server without it).
func (vm *VM) runInfo(L *lua.LState) int {
	props := map[string]any{}
	if t, ok := L.Get(1).(*lua.LTable); ok {
		data, err := vm.json.Encode(t, false)
		// An empty table ({}: a server without /props) encodes as [].
		if err == nil && string(data) != "[]" {
			err = json.Unmarshal(data, &props)
		}
		if err != nil {
			L.ArgError(1, "props must be /props as JSON: "+err.Error())
		}
	} else if L.Get(1) != lua.LNil {
		L.ArgError(1, "want /props as a table, or nil")
	}
	rec := struct {
		Model  artifact.RunModel  `json:"model"`
		Server artifact.RunServer `json:"server"`
	}{ModelOf(props, vm.endpoint()), ServerOf(props, vm.trackedArgs(), vm.endpoint(), servers.CapsOf(vm.req.Kind(L).Kind).Kind)}
	data, err := json.Marshal(rec)
	if err != nil {
		L.RaiseError("run_info: %v", err)
	}
	v, err := vm.json.Decode(L, data)
	if err != nil {
		L.RaiseError("run_info: %v", err)
	}
	L.Push(v)
	return 1
}
