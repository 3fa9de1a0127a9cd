package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"ttftlab/internal/atomicfile"
)

// WriteTable prints the report as a table: per schedule, the server's
// lateness against the plan, then one row per client.
func (rep *Report) WriteTable(w io.Writer) {
	m := rep.Machine
	fmt.Fprintf(w, "stamp error = arrival stamp - send stamp on CLOCK_MONOTONIC, in µs (ttftlab's mapped within ±%.2f µs)\n",
		float64(rep.ClockMapErrorNs)/1e3)
	scheme := "http"
	if rep.TLS {
		scheme = "https"
	}
	fmt.Fprintf(w, "%d CPUs, GOMAXPROCS %d, %s, load %s -> %s, keep_chunks=%v, %s, wire %s, kernel stamps %v\n",
		m.CPUs, m.GOMAXPROCS, m.Go, m.LoadBefore, m.LoadAfter, rep.KeepChunks, scheme, rep.Wire, onOff(rep.KernelStamps))
	if rep.ContendedBy > 0 {
		fmt.Fprintf(w, "contended by %d spinning processes (%s) during every schedule\n\n", rep.ContendedBy, strings.Join(rep.SpinCommand, " "))
	} else {
		fmt.Fprintf(w, "no contention added (--contend 0): other work on the machine is all there was\n\n")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "schedule\tclient\tchunks\tp50\tp90\tp99\tmax\tCPU µs/chunk\treader\tcaller\tallocs/chunk\theap growth B/chunk\tpeak heap\t")
	for _, s := range rep.Schedules {
		l := s.SendLateness
		fmt.Fprintf(tw, "%s\t(server late)\t\t%s\t%s\t%s\t%s\t\t\t\t\t\t\t\n", s.Name, num(l.P50, l.N), num(l.P90, l.N), num(l.P99, l.N), num(l.Max, l.N))
		for _, c := range s.Clients {
			e := c.StampError
			fmt.Fprintf(tw, "\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t\n", c.Client, c.Received, c.Expected,
				num(e.P50, e.N), num(e.P90, e.N), num(e.P99, e.N), num(e.Max, e.N), costCells(c))
		}
	}
	tw.Flush()
	if src := rep.stampSources(); src != "" {
		fmt.Fprintf(w, "ttftlab's stamps: %s\n", src)
	}
	if rep.hasExternal() {
		fmt.Fprintln(w, "* another client's whole-process CPU time per chunk, start-up included")
	}
	for _, s := range rep.Schedules {
		for _, c := range s.Clients {
			if c.Failure != "" {
				fmt.Fprintf(w, "\n%s, %s: %s", s.Name, c.Client, c.Failure)
			}
		}
	}
	fmt.Fprintf(w, "\n%.1f s in all\n", rep.ElapsedS)
}

// num formats a figure of a sample of n values ("-" for none).
func num(v float64, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

// costCells are ttftlab's measured costs, or for another client its
// whole-process CPU time per chunk, marked * (start-up included).
func costCells(r ClientResult) string {
	c := r.Cost
	if c == nil {
		cpu := "-"
		if r.CPUMsTotal > 0 && r.Received > 0 {
			cpu = fmt.Sprintf("%.2f*", r.CPUMsTotal*1e3/float64(r.Received))
		}
		return cpu + "\t-\t-\t-\t-\t-"
	}
	return fmt.Sprintf("%.2f\t%.2f\t%.2f\t%.1f\t%.1f\t%s", c.CPUUsPerChunk, c.ReaderUsPerChunk, c.CallerUsPerChunk,
		c.AllocsPerChunk, c.HeapGrowthPerChunk, bytesLabel(c.PeakHeapBytes))
}

func bytesLabel(b uint64) string {
	if b >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
}

// WriteJSON writes the report to path atomically, creating its folder.
func (rep *Report) WriteJSON(path string) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create the folder for %s: %w", path, err)
	}
	return atomicfile.Write(path, append(data, '\n'), 0o644)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// stampSources lists the sources ttftlab's clients reported, once each.
func (rep *Report) stampSources() string {
	seen := map[string]bool{}
	var out []string
	for _, s := range rep.Schedules {
		for _, c := range s.Clients {
			if c.StampSource != "" && !seen[c.StampSource] {
				seen[c.StampSource] = true
				out = append(out, c.StampSource)
			}
		}
	}
	return strings.Join(out, ", ")
}

func (rep *Report) hasExternal() bool {
	for _, s := range rep.Schedules {
		for _, c := range s.Clients {
			if c.Cost == nil && c.CPUMsTotal > 0 {
				return true
			}
		}
	}
	return false
}
