// Package load runs many streamed requests at once against one server, as
// calls of one or more turns: a closed loop (at most N calls in progress)
// or an open loop (calls arriving at a rate, constant or Poisson, or at a
// replayed trace's times: Schedule), with a think time between a call's
// turns, a ramp up to the level (Ramp) and calls that may start in steady
// state (Plan.SteadyStart). The Plan is the one schedule: it
// decides which call's which turn is due when (Plan.Arrivals and
// Plan.ThinkTime depend on the seed alone), and the caller only builds
// each request once it is due. When each request was due and when it
// really started are both reported, so delay on the client's side is
// never hidden (coordinated omission), with when it could have started
// (Result.Admitted: a cap may hold a call back); and the percentiles of
// what came back.
//
// The loop runs on the caller's goroutine: the caller's callbacks (which
// build the next request and take each result) may use state that is not
// safe for other goroutines, such as a Lua VM. The requests themselves run
// on goroutines of their own, and their stamps are the stream package's.
package load
