// Package load runs many streamed requests at once against one server: a
// closed loop (at most N in flight) or an open loop (starts at a rate,
// constant or Poisson), the time each request was due and when it really
// started, so that delay on the client's side is reported and never
// hidden (coordinated omission), and the percentiles of what came back.
//
// The loop runs on the caller's goroutine: the caller's callbacks (which
// build the next request and take each result) may use state that is not
// safe for other goroutines, such as a Lua VM. The requests themselves run
// on goroutines of their own, and their stamps are the stream package's.
package load
