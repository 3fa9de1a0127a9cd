package request

import (
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream"
)

// sameOrigin reports whether u is on the endpoint's scheme, host and
// port: only there do the endpoint's key and headers go.
func sameOrigin(ep *endpoint.Endpoint, u string) bool { return endpoint.SameOrigin(ep.Base, u) }

// CallOptions are the headers and TLS of a get or post to target: the
// endpoint's headers only when target is on the endpoint's origin, so a
// full URL elsewhere never receives the key.
func (rq *Binder) CallOptions(target string) stream.GetOptions {
	ep := rq.h.Endpoint
	o := stream.GetOptions{TLS: ep.TLS}
	if sameOrigin(ep, target) {
		o.Header = ep.Headers()
	}
	return o
}

// EndpointFromURL is opts.server given as a URL: the Host's endpoint moved
// there when it is the same origin (key and headers kept), else a server
// with no key and no headers (TLS settings kept: they hold no secret).
func (rq *Binder) EndpointFromURL(raw string) *endpoint.Endpoint {
	base := strings.TrimRight(raw, "/")
	if clean, err := endpoint.ParseBase(raw); err == nil {
		base = clean
	}
	ep := rq.h.Endpoint
	if sameOrigin(ep, base) {
		return ep.WithBase(base)
	}
	return &endpoint.Endpoint{Base: base, TLS: ep.TLS, CACert: ep.CACert, Insecure: ep.Insecure}
}

// EndpointFromTable is opts.server given as a table {url = ..., api_key =
// ..., headers = {...}, model = ...}: a server of the script's own.
func (rq *Binder) EndpointFromTable(L *lua.LState, t *lua.LTable) *endpoint.Endpoint {
	u, ok := t.RawGetString("url").(lua.LString)
	if !ok {
		L.RaiseError("stream: opts.server as a table needs url = \"http://HOST:PORT\"")
	}
	ep := rq.EndpointFromURL(string(u))
	ep = ep.WithBase(ep.Base)
	t.ForEach(func(k, v lua.LValue) {
		switch lua.LVAsString(k) {
		case "url":
		case "api_key":
			ep.Key, ep.KeySource = lua.LVAsString(v), "opts.server.api_key"
		case "headers":
			ep.Header = OptHeaders(L, v)
		case "model":
			ep.Model, ep.ModelSource = lua.LVAsString(v), "opts.server.model"
		default:
			L.RaiseError("stream: opts.server: unknown field %q (known: url, api_key, headers, model)", lua.LVAsString(k))
		}
	})
	return ep
}

// endpointTable is the endpoint as scripts see it (server_info().endpoint):
// never the key, only where it was set.
func endpointTable(L *lua.LState, ep *endpoint.Endpoint) *lua.LTable {
	t := L.CreateTable(0, 6)
	t.RawSetString("url", lua.LString(ep.Base))
	if s := ep.KeyShown(); s != "" {
		t.RawSetString("api_key", lua.LString(s))
	}
	if h := ep.Shown(); len(h) > 0 {
		ht := L.CreateTable(0, len(h))
		names := make([]string, 0, len(h))
		for k := range h {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ht.RawSetString(k, lua.LString(h[k]))
		}
		t.RawSetString("headers", ht)
	}
	if ep.Model != "" {
		t.RawSetString("model", lua.LString(ep.Model))
		t.RawSetString("model_from", lua.LString(ep.ModelSource))
	}
	if ep.CACert != "" {
		t.RawSetString("ca_cert", lua.LString(ep.CACert))
	}
	if ep.Insecure {
		t.RawSetString("insecure", lua.LTrue)
	}
	return t
}
