-- The calibration client: one stream() call with an on_chunk callback,
-- exactly as a lab script reads an answer. The host sets the calibrate
-- table: chunks, keep_chunks, record(index, t_ms) and finish(t0_ms, done,
-- error, stamp_source).
local record = calibrate.record
local _, _, _, info = stream("calibrate", {
  max_tokens = calibrate.chunks,
  keep_chunks = calibrate.keep_chunks,
  errors = "return",
  on_chunk = function(c) record(c.index, c.t_ms) end,
})
calibrate.finish(info.t0_ms, info.done, info.error, info.stamp_source)
