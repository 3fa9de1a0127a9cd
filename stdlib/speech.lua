-- speech: a streamed answer played back as a speaker would, so a voice
-- engineer sees whether the text keeps ahead of the voice.
--
--   local speech = require("speech")
--   speech.pacing(chunks, opts)          -> result
--   speech.first_clause_ms(chunks, opts) -> t_ms, clause | nil
--
-- chunks are stream()'s chunks: an array of {t_ms=, text=} in arrival
-- order (positional {t_ms, text} pairs work too).
--
-- pacing(chunks, opts): each sentence (the sentence module's rules) is
-- ready at the t_ms of the chunk that completed it; the last, unterminated
-- one at the last chunk. A sentence's audio exists tts_ms after it is
-- ready; it starts when its audio exists and the previous sentence has been
-- spoken, and takes its characters / chars_per_s seconds. opts (all
-- optional):
--   chars_per_s       speaking rate in UTF-8 characters per second (15)
--   tts_ms            text-to-speech latency per sentence (0)
--   min_clause_chars  for first_clause_ms (20)
-- The result:
--   start_ms, end_ms    when speaking starts and ends (nil without text)
--   stall_ms, stalls    time the speaker waited for text after it started,
--                       and how many waits
--   speak_ms            time spent speaking
--   first_sentence_ms   when the first sentence was ready
--   first_clause_ms     when the first clause was ready (see below)
--   sentences           {text=, chars=, ready_ms=, start_ms=, end_ms=} each
--
-- first_clause_ms(chunks, opts): the t_ms of the chunk after which
-- sentence.first_clause(text so far, false, opts.min_clause_chars) is decided,
-- and that clause: an earlier, riskier moment to start speaking than the
-- first sentence (never later than it). When it is never decided, the
-- whole answer at the last chunk. nil for no chunks or no text.
--
-- Both are the host's speech_pacing and speech_first_clause_ms (Go's
-- internal/voice, whose pacing gives stream_many's first_sentence_ms and
-- stall_ms).

return {
  pacing = speech_pacing,
  first_clause_ms = speech_first_clause_ms,
}
