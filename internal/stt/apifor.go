package stt

import (
	"net/url"
	"strings"
)

func apiFor(base string) API {
	u, err := url.Parse(base)
	if err != nil {
		return APIOpenAI
	}
	path := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(path, "/inference"):
		return APIWhisper
	case u.Scheme == "ws" || u.Scheme == "wss" || strings.HasSuffix(path, "/realtime"):
		return APIRealtime
	}
	return APIOpenAI
}
