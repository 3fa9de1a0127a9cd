package request

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream"
)

// apiState is what a Binder remembers between stream() calls about
// rendering messages for /v1/completions: the servers without
// /apply-template, and the prompts already rendered (a load run repeats
// them), so a request's start is not held up by a template call each time.
type apiState struct {
	noTemplate map[string]bool
	rendered   map[string]string // server + "\x00" + messages JSON -> prompt
}

// maxRendered bounds the rendered prompts kept; past it the map starts
// over.
const maxRendered = 4096

// parseAPIOption reads opts.api.
func parseAPIOption(L *lua.LState, v lua.LValue) stream.API {
	s, ok := v.(lua.LString)
	if !ok {
		L.RaiseError("stream: opts.api must be a string (chat, completions or responses), got %s", v.Type())
	}
	api, err := stream.ParseAPI(string(s))
	if err != nil {
		L.RaiseError("stream: opts.api: %v", err)
	}
	return api
}

// shapeBody gives a request body the shape its API asks for; it is the one
// place that knows how the three APIs' bodies differ (which fields go to
// which kind of server is decided after it):
//
//   - chat: {"messages": [...], "max_tokens": n, ...} as built;
//   - completions: the messages become "prompt", rendered with the
//     server's chat template through its /apply-template (llama.cpp),
//     else in the plain layout of plainPrompt; "max_tokens" stays;
//   - responses: the messages become "input", each an input item
//     {type = "message", role, content} (llama-server refuses an
//     assistant item without its type); "max_tokens" becomes
//     "max_output_tokens".
//
// A prompt, input or max_output_tokens the script set in opts.body is
// kept as it is; empty messages are refused unless the body has one
// (a prompt of token ids, say).
func (rq *Binder) shapeBody(L *lua.LState, c *streamCall) {
	c.req.API = c.api
	b := c.body
	if m, ok := b.RawGetString("messages").(*lua.LTable); ok && m.Len() == 0 {
		own := map[stream.API]string{stream.APICompletions: "prompt", stream.APIResponses: "input"}[c.api]
		if own == "" || b.RawGetString(own) == lua.LNil {
			L.ArgError(1, "messages is empty: give a string or an array of {role=, content=} tables (or, with api = \"completions\", the prompt in opts.body.prompt)")
		}
	}
	switch c.api {
	case stream.APICompletions:
		if b.RawGetString("prompt") == lua.LNil {
			b.RawSetString("prompt", lua.LString(rq.completionPrompt(L, c.ep, b.RawGetString("messages"))))
		}
		b.RawSetString("messages", lua.LNil)
	case stream.APIResponses:
		if b.RawGetString("input") == lua.LNil {
			b.RawSetString("input", inputItems(L, b.RawGetString("messages")))
		}
		b.RawSetString("messages", lua.LNil)
		if n := b.RawGetString("max_tokens"); n != lua.LNil {
			if b.RawGetString("max_output_tokens") == lua.LNil {
				b.RawSetString("max_output_tokens", n)
			}
			b.RawSetString("max_tokens", lua.LNil)
		}
	}
}

// inputItems copies messages as Responses input items: each message with
// a role and no type gets type = "message"; the script's tables are left
// as they were.
func inputItems(L *lua.LState, messages lua.LValue) lua.LValue {
	t, ok := messages.(*lua.LTable)
	if !ok {
		return messages
	}
	items := L.CreateTable(t.Len(), 0)
	for i := 1; i <= t.Len(); i++ {
		m, ok := t.RawGetInt(i).(*lua.LTable)
		if !ok || m.RawGetString("type") != lua.LNil {
			items.Append(t.RawGetInt(i))
			continue
		}
		item := L.CreateTable(0, 4)
		item.RawSetString("type", lua.LString("message"))
		m.ForEach(func(k, v lua.LValue) { item.RawSet(k, v) })
		items.Append(item)
	}
	return items
}

// completionPrompt renders messages as one prompt: through the server's
// /apply-template when it has one (404, 405 or 501 say it has not, and
// are remembered), else plainPrompt. When the server cannot be reached
// the plain layout is used and the stream itself reports the failure.
func (rq *Binder) completionPrompt(L *lua.LState, ep *endpoint.Endpoint, messages lua.LValue) string {
	server := ep.Base
	list, err := rq.h.JSON.Encode(messages, false)
	if err != nil {
		L.RaiseError("stream: the messages cannot be sent as JSON: %v", err)
	}
	st := &rq.apis
	key := server + "\x00" + string(list)
	if p, ok := st.rendered[key]; ok {
		return p
	}
	if !st.noTemplate[server] {
		payload := append(append([]byte(`{"messages":`), list...), '}')
		url := ep.URL("/apply-template")
		status, answer, err := stream.Post(rq.h.Ctx(L), url, payload, stream.GetOptions{Header: ep.Headers(), TLS: ep.TLS})
		switch {
		case err != nil:
			return plainPrompt(L, messages)
		case status == http.StatusOK:
			var out struct {
				Prompt *string `json:"prompt"`
			}
			if json.Unmarshal(answer, &out) != nil || out.Prompt == nil {
				L.RaiseError("stream: api = \"completions\": %s answered without a \"prompt\" string: %s", url, clip(answer, 200))
			}
			if st.rendered == nil || len(st.rendered) >= maxRendered {
				st.rendered = map[string]string{}
			}
			st.rendered[key] = *out.Prompt
			return *out.Prompt
		case status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusNotImplemented:
			if st.noTemplate == nil {
				st.noTemplate = map[string]bool{}
			}
			st.noTemplate[server] = true
		default:
			L.RaiseError("stream: api = \"completions\" renders the messages with the server's chat template, but %s answered HTTP %d: %s (give opts.body.prompt to send a prompt of your own)",
				url, status, clip(answer, 200))
		}
	}
	return plainPrompt(L, messages)
}

// plainPrompt is the layout of a completions prompt when the server has no
// chat template to apply: one "role: content" line per message, then
// "assistant:" for the answer to continue.
func plainPrompt(L *lua.LState, messages lua.LValue) string {
	t, ok := messages.(*lua.LTable)
	if !ok {
		L.RaiseError("stream: the messages must be a table, got %s", messages.Type())
	}
	var b strings.Builder
	for i := 1; i <= t.Len(); i++ {
		m, _ := t.RawGetInt(i).(*lua.LTable)
		if m == nil {
			L.RaiseError("stream: messages[%d] must be a table", i)
		}
		content, ok := m.RawGetString("content").(lua.LString)
		if !ok {
			L.RaiseError("stream: api = \"completions\" without a server chat template needs string contents; messages[%d].content is %s", i, m.RawGetString("content").Type())
		}
		fmt.Fprintf(&b, "%s: %s\n", lua.LVAsString(m.RawGetString("role")), string(content))
	}
	b.WriteString("assistant:")
	return b.String()
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return fmt.Sprintf("%q...", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// PromptTokens reads the prompt's size and the part of it the server took
// from its cache: llama.cpp's timings (prompt_n evaluated + cache_n
// reused), else the usage object (chat and completions: prompt_tokens and
// prompt_tokens_details.cached_tokens; responses: input_tokens and
// input_tokens_details.cached_tokens). from says which ("" when neither
// came: both unknown).
func PromptTokens(timings, usage map[string]any) (prompt, cached *float64, from string) {
	num := func(m map[string]any, k string) *float64 {
		if f, ok := m[k].(float64); ok {
			return &f
		}
		return nil
	}
	if n, c := num(timings, "prompt_n"), num(timings, "cache_n"); n != nil {
		total := *n
		if c != nil {
			total += *c
		}
		return &total, c, "timings"
	}
	for _, k := range [][2]string{{"prompt_tokens", "prompt_tokens_details"}, {"input_tokens", "input_tokens_details"}} {
		if p := num(usage, k[0]); p != nil {
			details, _ := usage[k[1]].(map[string]any)
			return p, num(details, "cached_tokens"), "usage"
		}
	}
	return nil, nil, ""
}

// GeneratedTokens reads the tokens the answer took from the usage object
// (chat and completions: completion_tokens; responses: output_tokens), nil
// when it has neither.
func GeneratedTokens(usage map[string]any) *float64 {
	for _, k := range []string{"completion_tokens", "output_tokens"} {
		if v, ok := usage[k].(float64); ok {
			return &v
		}
	}
	return nil
}
