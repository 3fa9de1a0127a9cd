package llamaserver

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// Tracked is a server this process started and recorded in a Registry.
type Tracked struct {
	*Server
	State State
	reg   *Registry
}

// AlreadyRunningError says a recorded server still runs on the port.
type AlreadyRunningError struct {
	State State
}

func (e *AlreadyRunningError) Error() string {
	return fmt.Sprintf("ttftlab already runs llama-server on port %d (PID %d, %s)", e.State.Port, e.State.PID, e.State.URL)
}

// Start starts llama-server detached (it outlives this process until
// stopped) and records it. A record whose PID is gone is cleared first;
// progress receives what happens, including the model loading.
func (r *Registry) Start(ctx context.Context, o Options, progress io.Writer) (*Tracked, error) {
	if err := r.clearStale(o.Port, progress); err != nil {
		return nil, err
	}
	if err := r.mkdir(); err != nil {
		return nil, err
	}
	o.LogPath, o.RotateLog = r.LogPath(o.Port), true
	o.Model, _ = filepath.Abs(o.Model)
	o.Detach = true
	if o.Progress == nil && progress != nil {
		o.Progress = func(d time.Duration, status string) {
			fmt.Fprintf(progress, "  waiting for llama-server: %s (%.0f s)\n", status, d.Seconds())
		}
	}
	o.defaults()
	// A model that is not there is said before "starting", not after it.
	if err := CheckModel(o.Model); err != nil {
		return nil, err
	}
	if progress != nil {
		fmt.Fprintf(progress, "starting llama-server on %s:%d with %s (log: %s)\n", o.Host, o.Port, o.Model, o.LogPath)
	}
	srv, err := Start(ctx, o)
	if err != nil {
		return nil, err
	}
	st := State{PID: srv.PID, Port: o.Port, URL: srv.URL, Model: o.Model, Args: srv.Args,
		LogPath: o.LogPath, Started: time.Now()}
	if err := r.Save(st); err != nil {
		srv.Stop(10 * time.Second)
		return nil, fmt.Errorf("llama-server started but its state could not be saved, so it was stopped: %w", err)
	}
	return &Tracked{Server: srv, State: st, reg: r}, nil
}

// clearStale refuses a port whose recorded server still runs and forgets a
// record whose PID is gone.
func (r *Registry) clearStale(port int, progress io.Writer) error {
	st, err := r.Load(port)
	if err != nil || st == nil {
		return err
	}
	if st.Alive() {
		return &AlreadyRunningError{State: *st}
	}
	if progress != nil {
		fmt.Fprintf(progress, "removing stale state for port %d (PID %d is gone)\n", port, st.PID)
	}
	return r.forget(port)
}

// Stop ends the server (SIGTERM, then SIGKILL after grace) and forgets it.
func (t *Tracked) Stop(grace time.Duration) error {
	err := t.Server.Stop(grace)
	if ferr := t.reg.forget(t.State.Port); err == nil {
		err = ferr
	}
	return err
}

// Stopped says how Registry.Stop went.
type Stopped struct {
	State *State // the record, nil when there was none
	Stale bool   // the recorded PID was already gone
	// Killed is true when the server ignored SIGTERM for the grace period.
	Killed bool
}

// Stop ends the recorded server on port, which another ttftlab process may
// have started, and forgets it. It signals only a PID that still runs
// llama-server, so a recycled PID is never touched.
func (r *Registry) Stop(port int, grace time.Duration) (Stopped, error) {
	st, err := r.Load(port)
	if err != nil || st == nil {
		return Stopped{}, err
	}
	res := Stopped{State: st}
	if !st.Alive() {
		res.Stale = true
		return res, r.forget(port)
	}
	res.Killed, err = StopPID(st.PID, grace)
	if err != nil {
		return res, err
	}
	return res, r.forget(port)
}
