-- voice: a streamed answer spoken as a voice agent speaks it. Each
-- sentence goes to the speech server the moment it is complete (one
-- request per sentence, several in flight, as pipecat and LiveKit do), and
-- the audio is played back as a speaker plays it, so the figures are the
-- caller's: when the first audio came, and how long the caller heard
-- nothing in the middle of the answer.
--
--   local voice = require("voice")
--   voice.stream(messages, opts)   -> chunks, total_ms, timings, info
--   voice.play(sentences)          -> result
--
-- stream(messages, opts): stream(messages, opts) with opts.tts set (the
-- pipeline runs in Go, internal/voice, as stream_many's does): true
-- for the command's speech server (--tts), or a table of speak() options
-- (server, voice, format, ...). opts.clause = true sends the first clause
-- (sentence.first_clause, opts.min_clause_chars) as soon as it is decided,
-- instead of waiting for the first sentence. Every other option is
-- stream()'s; an on_chunk of the script's runs first. A cut answer (a
-- barge-in, cut_after_ms, on_chunk returning false) hangs up the speech
-- requests still in flight and sends none of the rest.
-- info gains, on the answer's time axis (t0 of the LLM request):
--   spoken             {text=, ready_ms=, tts_sent_ms=, first_audio_ms=,
--                      first_voiced_ms=, audio_done_ms=, audio_ms=,
--                      start_ms=, end_ms=, error=} each: ready_ms when the
--                      chunk that completed it arrived, tts_sent_ms when its
--                      speech request's first byte was written (the gap is
--                      the agent's own overhead), first_audio_ms and
--                      audio_done_ms when its first and last audio bytes
--                      arrived, audio_ms its length, start_ms and end_ms
--                      when a speaker plays it
--   first_audio_ms     when the caller's first audio arrived (the first
--                      sentence's; nil when no audio came)
--   first_voiced_ms    when its first voiced sample arrived
--   underrun_ms, underruns   silence in the middle of the answer: a speaker
--                      that has played every audio so far and waits for more
--   speak_end_ms       when the speaker falls silent
--   overhead_ms        the largest tts_sent_ms - ready_ms
--   tts_errors         speech requests that failed (their sentences are
--                      left out of the playback)
--
-- play(sentences): the playback arithmetic alone, over sentences carrying
-- first_audio_ms, audio_done_ms and audio_ms (the first two on one time
-- axis). Sentence k starts when its first audio has come and sentence k-1
-- has been played; it is played in audio_ms, unless its audio comes slower
-- than it plays: then it ends when its last byte came (the audio of a
-- sentence is taken to arrive at an even pace). A start later than the
-- previous end, and an end stretched by slow audio, are underruns. A
-- sentence without first_audio_ms (its request failed) is skipped. Returns
-- {start_ms, end_ms, underrun_ms, underruns, sentences} with each
-- sentence's start_ms and end_ms set. It is the host's voice_play (Go's
-- internal/audio, the playback of the pipeline and of ttftlab check).

local M = {}

M.play = voice_play

function M.stream(messages, opts)
  if type(opts) ~= "table" or opts.tts == nil or opts.tts == false then
    error("voice.stream: opts.tts must be set (true, or a table of speak() options)", 2)
  end
  return stream(messages, opts)
end

return M
