package pocketsphinx

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"ttftlab/internal/audio"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/engineserve"
)

// RealtimeRate is the sample rate of a Realtime session's PCM16 audio
// unless the session says another (OpenAI's pcm16 is 24 kHz).
const RealtimeRate = 24000

// HangoverMs is how long the energy detector's speech (samples above
// callaudio.SpeechPeak, 1 % of full scale: the caller's audio rule) lasts after its
// last sample above SpeechPeak: speech that resumes within it is the same
// speech, so an utterance pocketsphinx ended in the middle of it gets no
// input_audio_buffer.speech_started of its own (its speech_stopped
// brings one, at the start pocketsphinx gives).
const HangoverMs = 300

// MaxEvent bounds a client event of a Realtime session: a second of
// 48 kHz PCM16 in base64 is 128 KiB; 16 MiB is far above any append.
const MaxEvent = 16 << 20

// InputFormat is a Realtime session's audio.input.format (the generally
// available shape).
type InputFormat struct {
	Type string `json:"type"`
	Rate int    `json:"rate"`
}

// InputRate is the rate of the client's audio after a session.update that
// gave beta's input_audio_format (nil: not given) or the generally
// available audio.input.format (nil: not given); rate is the rate so far.
// Only PCM16 is served.
func InputRate(rate int, beta *string, ga *InputFormat) (int, error) {
	if beta != nil {
		if *beta != "pcm16" {
			return 0, fmt.Errorf("input_audio_format %q is not served: send pcm16", *beta)
		}
		rate = RealtimeRate
	}
	if ga != nil {
		if ga.Type != "" && ga.Type != "audio/pcm" {
			return 0, fmt.Errorf("audio format %q is not served: send audio/pcm (PCM16)", ga.Type)
		}
		if ga.Rate < 0 || ga.Rate > 192000 {
			return 0, fmt.Errorf("audio rate %d is not a sample rate", ga.Rate)
		}
		rate = RealtimeRate
		if ga.Rate > 0 {
			rate = ga.Rate
		}
	}
	return rate, nil
}

// Listener hears the audio a Realtime session's client appends, as
// OpenAI's server_vad does, and sends its events: the audio (PCM16 at
// the session's rate) goes, resampled to 16 kHz, to the session's own
// `pocketsphinx live -` as it arrives; input_audio_buffer.speech_started
// comes from an energy detector on the audio (callaudio.SpeechPeak,
// HangoverMs), and when pocketsphinx ends an utterance (its own voice
// activity detection) the Listener sends speech_stopped, committed and
// conversation.item.input_audio_transcription.completed. Append, Commit
// and Close are called from the session's one reading goroutine.
type Listener struct {
	s   *Server
	ev  *engineserve.Events
	ctx context.Context
	id  string

	// OnSpeechStarted, when set, is called right after a speech_started
	// is sent, with its item's id; OnHeard right after an item's
	// transcription.completed, with its id and transcript. They are
	// called in the order of the events, with the Listener's lock held:
	// they must not call the Listener, and must not block.
	OnSpeechStarted func(item string)
	OnHeard         func(item, transcript string)

	rate int // of the client's audio
	rs   *audio.Resampler

	// dec is the decoder the audio goes to, nil before the first append
	// and after a commit; offsetMs is the audio given to the decoders
	// before it; reader is closed when dec's output has been read.
	dec      *decoder
	offsetMs float64
	reader   chan struct{}

	mu sync.Mutex // what follows, and the order of events
	// fedMs is the audio received so far, in ms.
	fedMs float64
	// lastSpeech is the time (ms) of the last sample above SpeechPeak.
	lastSpeech float64
	// open is the item a speech_started opened and no utterance ended;
	// pending says audio came since the last item ended.
	open     string
	pending  bool
	items    int
	prevItem string
}

// Listen is a Listener for the session id (its items' ids carry it),
// sending its events to ev, its decoders taken from s until ctx ends or
// Close; the audio is at RealtimeRate until SetRate.
func (s *Server) Listen(ctx context.Context, ev *engineserve.Events, id string) *Listener {
	return &Listener{s: s, ev: ev, ctx: ctx, id: id, rate: RealtimeRate, lastSpeech: math.Inf(-1)}
}

// Rate is the rate of the client's audio.
func (l *Listener) Rate() int { return l.rate }

// SetRate sets the rate of the client's audio from now on.
func (l *Listener) SetRate(rate int) {
	if rate != l.rate {
		l.rate, l.rs = rate, nil
	}
}

// Heard is the audio received so far (ms) and the items it made.
func (l *Listener) Heard() (fedMs float64, items int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fedMs, l.items
}

// AppendEvent is input_audio_buffer.append: its base64 audio appended,
// an error event for audio that is not base64 or a decoder that failed.
func (l *Listener) AppendEvent(b64, eventID string) {
	pcm, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		l.ev.Fail("invalid_value", eventID, "audio is not base64: %v", err)
		return
	}
	if err := l.Append(pcm); err != nil {
		l.ev.Fail("server_error", eventID, "%v", err)
	}
}

// Append takes a piece of the client's audio: the energy detector reads
// it, and the decoder gets it at 16 kHz.
func (l *Listener) Append(pcm []byte) error {
	n := len(pcm) / 2
	if n == 0 {
		return nil
	}
	if l.dec != nil && l.dec.died.Load() {
		// The decoder died (its reader said so with an error event):
		// this audio goes to a new one.
		d := l.dec
		l.dec, l.rs = nil, nil
		l.s.done(d)
	}
	if l.dec == nil {
		if err := l.startDecoder(); err != nil {
			return err
		}
	}
	l.mu.Lock()
	at := l.fedMs
	for i := 0; i < n; i++ {
		if callaudio.IsSpeech(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) {
			t := at + float64(i)*1000/float64(l.rate)
			if t-l.lastSpeech > HangoverMs && l.open == "" {
				l.open = l.newItem()
				l.ev.Send(map[string]any{"type": "input_audio_buffer.speech_started", "audio_start_ms": int(t), "item_id": l.open})
				if l.OnSpeechStarted != nil {
					l.OnSpeechStarted(l.open)
				}
			}
			l.lastSpeech = t
		}
	}
	l.fedMs += float64(n) * 1000 / float64(l.rate)
	l.pending = true
	l.mu.Unlock()
	if l.rs == nil {
		l.rs = audio.NewResampler(l.rate, Rate)
	}
	if err := l.dec.write(l.rs.Push(nil, pcm[:2*n])); err != nil {
		// The decoder is gone: the next audio gets a new one.
		d := l.dec
		l.dec = nil
		l.s.done(d)
		return err
	}
	return nil
}

// startDecoder takes a decoder for the audio from now on and reads its
// utterances as it prints them.
func (l *Listener) startDecoder() error {
	d, _, err := l.s.take(l.ctx)
	if err != nil {
		return err
	}
	l.mu.Lock()
	l.dec, l.offsetMs, l.reader = d, l.fedMs, make(chan struct{})
	offset, done := l.offsetMs, l.reader
	l.mu.Unlock()
	go func() {
		defer close(done)
		for {
			u, err := d.next()
			if err == io.EOF {
				return
			}
			if err != nil {
				// Marked before the error event goes, so the audio the
				// client sends after it goes to a new decoder.
				d.died.Store(true)
				if l.ctx.Err() == nil {
					l.ev.Fail("server_error", "", "%v", err)
				}
				return
			}
			l.utterance(u, offset)
		}
	}()
	return nil
}

// utterance is pocketsphinx's end of an utterance: the item the energy
// detector opened (else one opened now, at pocketsphinx's start) stops,
// is committed and has its transcript.
func (l *Listener) utterance(u utterance, offset float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := l.open
	if id == "" {
		id = l.newItem()
		l.ev.Send(map[string]any{"type": "input_audio_buffer.speech_started", "audio_start_ms": int(offset + u.Begin*1000), "item_id": id})
		if l.OnSpeechStarted != nil {
			l.OnSpeechStarted(id)
		}
	}
	l.ev.Send(map[string]any{"type": "input_audio_buffer.speech_stopped", "audio_end_ms": int(offset + (u.Begin+u.Dur)*1000), "item_id": id})
	l.closeItem(id, strings.TrimSpace(u.Text))
}

// closeItem sends an item's committed and completed events.
func (l *Listener) closeItem(id, text string) {
	l.ev.Send(map[string]any{"type": "input_audio_buffer.committed", "previous_item_id": nullable(l.prevItem), "item_id": id})
	l.ev.Send(map[string]any{"type": "conversation.item.input_audio_transcription.completed", "item_id": id, "content_index": 0, "transcript": text})
	l.prevItem, l.open, l.pending = id, "", false
	if l.OnHeard != nil {
		l.OnHeard(id, text)
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// Commit is input_audio_buffer.commit: it ends the audio given so far:
// the decoder's input is closed, its utterances are sent as it prints
// them, and an item still open (or audio that made none) is committed
// with what pocketsphinx made of it. Nothing to commit is an error event.
func (l *Listener) Commit(eventID string) {
	l.mu.Lock()
	pending := l.pending
	l.mu.Unlock()
	if l.dec == nil || !pending {
		l.ev.Fail("input_audio_buffer_commit_empty", eventID, "the audio buffer is empty: append audio before committing it")
		return
	}
	d, done := l.dec, l.reader
	d.closeInput()
	select {
	case <-done:
	case <-l.ctx.Done():
		return
	}
	l.s.done(d)
	l.dec = nil
	l.rs = nil
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending {
		id := l.open
		if id == "" {
			id = l.newItem()
		}
		l.closeItem(id, "")
	}
}

// Close stops the session's decoder (by its PID).
func (l *Listener) Close() {
	if l.dec != nil {
		d := l.dec
		l.dec = nil
		l.s.done(d)
	}
}

func (l *Listener) newItem() string {
	l.items++
	return fmt.Sprintf("item_%s_%d", strings.TrimPrefix(l.id, "sess_"), l.items)
}
