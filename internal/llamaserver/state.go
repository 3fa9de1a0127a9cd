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

// State is what ttftlab remembers about a server it started.
type State struct {
	PID     int       `json:"pid"`
	Port    int       `json:"port"`
	URL     string    `json:"url"`
	Model   string    `json:"model"`
	Args    []string  `json:"args"`
	LogPath string    `json:"log_path"`
	Started time.Time `json:"started"`
}

// Alive reports whether the recorded PID still runs llama-server.
func (st *State) Alive() bool {
	return ProcessRuns(st.PID, "llama-server")
}

// Registry is the record of the servers ttftlab started: one PORT.json
// (the State) and one PORT.log per port in the servers folder of the state
// folder, so several servers can run at once and any ttftlab process finds
// them. Every change of a record goes through it.
type Registry struct {
	dir string
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

// OpenRegistry returns the registry in the state folder. Nothing is
// created until a server is recorded.
func OpenRegistry() (*Registry, error) {
	d, err := StateDir()
	if err != nil {
		return nil, err
	}
	return &Registry{dir: filepath.Join(d, "servers")}, nil
}

// LogPath is where the server on port writes its log.
func (r *Registry) LogPath(port int) string {
	return filepath.Join(r.dir, strconv.Itoa(port)+".log")
}

func (r *Registry) statePath(port int) string {
	return filepath.Join(r.dir, strconv.Itoa(port)+".json")
}

// mkdir creates the servers folder.
func (r *Registry) mkdir() error {
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		return fmt.Errorf("creating the state folder %s: %w (set TTFTLAB_STATE to a writable folder)", r.dir, err)
	}
	return nil
}

// Load returns the record for port, or (nil, nil) when there is none.
func (r *Registry) Load(port int) (*State, error) {
	p := r.statePath(port)
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

// Save records a started server.
func (r *Registry) Save(st State) error {
	if err := r.mkdir(); err != nil {
		return err
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(r.statePath(st.Port), append(data, '\n'), 0o644)
}

// forget drops the record for port; the log stays. It is the only place a
// record is removed.
func (r *Registry) forget(port int) error {
	if err := os.Remove(r.statePath(port)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing server state: %w", err)
	}
	return nil
}

// Dir is the folder of the records and logs.
func (r *Registry) Dir() string { return r.dir }

// Ports lists the ports with a record, in order.
func (r *Registry) Ports() ([]int, error) {
	names, err := filepath.Glob(filepath.Join(r.dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var ports []int
	for _, n := range names {
		if p, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(n), ".json")); err == nil {
			ports = append(ports, p)
		}
	}
	sort.Ints(ports)
	return ports, nil
}

// ForURL returns the record whose URL is url, or nil.
func (r *Registry) ForURL(url string) *State {
	ports, err := r.Ports()
	if err != nil {
		return nil
	}
	for _, port := range ports {
		if st, err := r.Load(port); err == nil && st != nil && st.URL == url {
			return st
		}
	}
	return nil
}

// DefaultPort is the port a command acts on when none is named: the only
// recorded server's, else 8080.
func (r *Registry) DefaultPort() int {
	if ports, err := r.Ports(); err == nil && len(ports) == 1 {
		return ports[0]
	}
	return 8080
}
