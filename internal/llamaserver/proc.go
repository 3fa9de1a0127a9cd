package llamaserver

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TailFile returns the last n lines of a file ("" when unreadable).
func TailFile(path string, n int) string {
	tail, _ := Tail(path, n)
	return tail
}

// Tail returns the last n lines of a file and the file's size when read, the
// offset from which to follow it.
func Tail(path string, n int) (tail string, size int64) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if n <= 0 {
		return "", int64(len(data))
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n"), int64(len(data))
}

// portOwner names the process listening on a TCP port, from /proc (Linux
// only; "" when it cannot tell, e.g. another user's process).
func portOwner(port int) string {
	inode := listenInode(port)
	if inode == "" {
		return ""
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	target := "socket:[" + inode + "]"
	for _, fd := range procs {
		if link, err := os.Readlink(fd); err == nil && link == target {
			pid := strings.Split(fd, "/")[2]
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			return fmt.Sprintf("%s (PID %s)", strings.TrimSpace(string(comm)), pid)
		}
	}
	return ""
}

func listenInode(port int) string {
	hexPort := fmt.Sprintf(":%04X", port)
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			// local_address is field 1, state 0A is LISTEN, inode is field 9.
			if len(fields) > 9 && strings.HasSuffix(fields[1], hexPort) && fields[3] == "0A" {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}

// ProcessRuns reports whether pid is alive and, when want is not empty, its
// command line mentions want.
func ProcessRuns(pid int, want string) bool {
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	return want == "" || strings.Contains(string(cmdline), want)
}
