package llamaserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"ttftlab/internal/atomicfile"
)

// State is what ttftlab remembers about a server it started, one file per
// port in the state folder.
type State struct {
	PID     int       `json:"pid"`
	Port    int       `json:"port"`
	URL     string    `json:"url"`
	Model   string    `json:"model"`
	Args    []string  `json:"args"`
	LogPath string    `json:"log_path"`
	Started time.Time `json:"started"`
}

// StateDir is $TTFTLAB_STATE, else $XDG_STATE_HOME/ttftlab, else
// ~/.local/state/ttftlab.
func StateDir() (string, error) {
	if d := os.Getenv("TTFTLAB_STATE"); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "ttftlab"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("finding the state folder: %w (set TTFTLAB_STATE)", err)
	}
	return filepath.Join(home, ".local", "state", "ttftlab"), nil
}

func serversDir() (string, error) {
	d, err := StateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "servers"), nil
}

// LogPathFor is where a server on port keeps its log.
func LogPathFor(port int) (string, error) {
	d, err := serversDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("creating state folder %s: %w (set TTFTLAB_STATE to a writable folder)", d, err)
	}
	return filepath.Join(d, strconv.Itoa(port)+".log"), nil
}

func statePath(port int) (string, error) {
	d, err := serversDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, strconv.Itoa(port)+".json"), nil
}

// SaveState records a started server.
func SaveState(st State) error {
	p, err := statePath(st.Port)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("creating state folder: %w (set TTFTLAB_STATE to a writable folder)", err)
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(p, append(data, '\n'), 0o644)
}

// LoadState returns the state for port, or (nil, nil) when none is recorded.
func LoadState(port int) (*State, error) {
	p, err := statePath(port)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading server state: %w", err)
	}
	var st State
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("server state %s is damaged (%v); remove it", p, err)
	}
	return &st, nil
}

// RemoveState forgets the server on port (the log stays).
func RemoveState(port int) error {
	p, err := statePath(port)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing server state: %w", err)
	}
	return nil
}

// TrackedPorts lists the ports with recorded servers, in order.
func TrackedPorts() ([]int, error) {
	d, err := serversDir()
	if err != nil {
		return nil, err
	}
	names, _ := filepath.Glob(filepath.Join(d, "*.json"))
	var ports []int
	for _, n := range names {
		if p, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(n), ".json")); err == nil {
			ports = append(ports, p)
		}
	}
	sort.Ints(ports)
	return ports, nil
}

// Alive reports whether the recorded PID still runs llama-server.
func (st *State) Alive() bool {
	return ProcessRuns(st.PID, "llama-server")
}
