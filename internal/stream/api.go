package stream

import "fmt"

// API is the streaming API a request speaks: which path it is sent to,
// how its body is shaped and how its events are read. The stamps do not
// depend on it: every read is stamped before any event is parsed.
type API uint8

const (
	// APIChat is /v1/chat/completions: data events whose
	// choices[0].delta carries content, reasoning and tool calls, ended by
	// data: [DONE].
	APIChat API = iota
	// APICompletions is /v1/completions: data events whose
	// choices[0].text is the content, ended by data: [DONE].
	APICompletions
	// APIResponses is /v1/responses: named events ("event:
	// response.output_text.delta") whose data's "type" says what they
	// carry, ended by response.completed, response.incomplete or
	// response.failed, with no [DONE].
	APIResponses
	// APISpeech is /v1/audio/speech: the answer is audio (WAV, or raw PCM
	// of a format the caller knows), read by Request.Speech's meter, and
	// its end is the end of the body. It is no text API: ParseAPI and
	// APINames do not offer it.
	APISpeech
	// APITranscription is /v1/audio/transcriptions (and whisper.cpp's
	// /inference): the body is multipart (its Content-Type in
	// Request.Header), the answer either one JSON object whose "text" is
	// the transcript, its end the end of the body, or (stream=true)
	// server-sent events transcript.text.delta, whose deltas are the
	// content chunks, ended by transcript.text.done. Result.Transcript
	// holds the transcript. It is no text API either.
	APITranscription
)

var apiNames = [...]string{"chat", "completions", "responses", "speech", "transcription"}
var apiPaths = [...]string{"/v1/chat/completions", "/v1/completions", "/v1/responses", "/v1/audio/speech", "/v1/audio/transcriptions"}

// textAPIs is the number of APIs that stream text.
const textAPIs = 3

func (a API) String() string {
	if int(a) < len(apiNames) {
		return apiNames[a]
	}
	return "unknown"
}

// Path is the API's path below the server's base URL.
func (a API) Path() string {
	if int(a) < len(apiPaths) {
		return apiPaths[a]
	}
	return DefaultPath
}

// APINames lists the APIs' names, in the order of their values.
func APINames() []string { return append([]string(nil), apiNames[:textAPIs]...) }

// ParseAPI reads an API's name: chat, completions or responses.
func ParseAPI(s string) (API, error) {
	for i, n := range apiNames[:textAPIs] {
		if s == n {
			return API(i), nil
		}
	}
	return APIChat, fmt.Errorf("unknown API %q: want chat, completions or responses", s)
}

// endMarker names what ends a complete stream of the API, for messages.
func (a API) endMarker() string {
	switch a {
	case APIResponses:
		return "response.completed (or response.incomplete, response.failed)"
	case APISpeech:
		return "the end of the audio"
	case APITranscription:
		return "the transcript (the JSON answer's end, or transcript.text.done)"
	}
	return "data: [DONE]"
}

// eventNoun names one data event of the API, for messages.
func (a API) eventNoun() string {
	switch a {
	case APICompletions:
		return "a completions chunk"
	case APIResponses:
		return "a Responses API event"
	case APITranscription:
		return "a transcription event"
	}
	return "a chat-completion chunk"
}
