package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"
	"ttftlab/internal/voiceagent"
)

// defaultVoicePort is `voice serve`'s port unless --port names another.
const defaultVoicePort = 8090

// voiceServe is `ttftlab voice serve`.
type voiceServe struct{ env *env }

func newVoiceServe(e *env) runner { return &voiceServe{env: e} }

const voiceServeAbout = "Answers OpenAI's Realtime API at ws://HOST:PORT/v1/realtime (the GA events; a beta client's\n" +
	"session.update is read too) as a cascaded voice agent: the caller's 24 kHz PCM16 heard by pocketsphinx\n" +
	"(speech_started from its energy detector, speech_stopped and the transcript when it ends the\n" +
	"utterance), the answer streamed from the LLM server at --server (the session's instructions as the\n" +
	"system prompt, the conversation kept per session), each sentence spoken by espeak-ng as it completes,\n" +
	"the audio sent back as 24 kHz PCM16 deltas. response.cancel, or the caller speaking over the answer,\n" +
	"closes the LLM stream (the server sees the cut) and stops espeak-ng; conversation.item.truncate cuts\n" +
	"the answer's text to what was played. With no server answering at --server and no --model, the\n" +
	"synthetic model is served, as the lab does. Prints `listening on ws://...` once ready."

func (c *voiceServe) Run(ctx context.Context, args []string) error {
	fs := c.env.flags("[--server URL] [--host H] [--port N] [flags]", voiceServeAbout)
	var h hostFlags
	h.targetFlags.registerEndpoint(fs)
	h.start.register(fs)
	h.registerSynth(fs)
	host := fs.String("host", "127.0.0.1", "address to listen on")
	port := fs.intFlag("port", defaultVoicePort, 0, 65535, "port to listen on (0: a free one)")
	maxTokens := fs.intFlag("max-tokens", voiceagent.DefaultMaxTokens, 1, 1<<20, "the most tokens an answer may have (max_tokens)")
	verbose := fs.Bool("v", false, "print a line per session and per answer")
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := h.targetFlags.check(fs); err != nil {
		return err
	}
	h.synthAsked = fs.given()["synth-preset"]
	// The engines first: a missing one is said before a model loads.
	psBin, err := pocketsphinx.FindOrInstall(ctx, c.env.Err)
	if err != nil {
		return err
	}
	esBin, err := tts.FindOrInstall(ctx, c.env.Err)
	if err != nil {
		return err
	}
	lease, err := c.env.lease(ctx, &h, serverOrSynth)
	if err != nil {
		return err
	}
	defer c.env.release(lease, &h)

	ps := &pocketsphinx.Server{Bin: psBin}
	agent := &voiceagent.Agent{LLM: lease.Endpoint, Ears: voiceagent.Pocketsphinx{Server: ps}, Voice: &tts.Server{Bin: esBin}, MaxTokens: *maxTokens}
	if *verbose {
		agent.Log, ps.Log = c.env.Err, c.env.Err
	}
	defer ps.Close()
	c.env.signals.onHardExit(func() { ps.Close() })
	ln, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return fmt.Errorf("cannot listen on %s:%d: %w (pick another with --port)", *host, *port, err)
	}
	if err := ps.Warm(); err != nil {
		ln.Close()
		return err
	}
	// Every session's context ends with the command's: Ctrl-C stops the
	// LLM streams, espeak-ng and the decoders of the sessions open.
	hs := &http.Server{Handler: agent, ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	c.env.signals.describe("stopping the voice agent")
	fmt.Fprintf(c.env.Out, "voice agent: LLM %s, speech-to-text %s (%s), speech %s (%s); Ctrl-C stops it\n",
		lease.Endpoint.Base, pocketsphinx.Version(psBin), psBin, tts.Version(esBin), esBin)
	fmt.Fprintf(c.env.Out, "listening on ws://%s/v1/realtime\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		agent.Wait()
		return ctx.Err()
	}
}
