package calibrate

import (
	"os"
	goruntime "runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Machine describes where the figures were taken: they hold for this
// machine and this load only.
type Machine struct {
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Go         string `json:"go"`
	Kernel     string `json:"kernel"`
	CPUModel   string `json:"cpu_model,omitempty"`
	// LoadBefore and LoadAfter are /proc/loadavg's 1-minute figure: other
	// work on the machine shifts every stamp.
	LoadBefore string `json:"load_before"`
	LoadAfter  string `json:"load_after"`
}

func describeMachine() Machine {
	m := Machine{CPUs: goruntime.NumCPU(), GOMAXPROCS: goruntime.GOMAXPROCS(0), Go: goruntime.Version(),
		CPUModel: cpuModel(), LoadBefore: loadAverage()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
	}
	return m
}

// loadAverage is the 1-minute load average, "" when unknown.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// cpuModel is /proc/cpuinfo's first "model name".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
