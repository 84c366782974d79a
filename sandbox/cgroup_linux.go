package sandbox

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// newProcLimit returns the pids cgroup a command runs in when the launcher's
// process limit does not hold: RLIMIT_NPROC does not bind root, and in
// mode off it would count every process of the user. Without one, the
// timeout is the bound.
func newProcLimit(sp *spec) procLimit {
	if os.Geteuid() != 0 {
		return noLimit{}
	}
	cg, err := newPidsCgroup(sp.Processes)
	if err != nil {
		return noLimit{}
	}
	return cg
}

// pidsCgroupWorks reports whether newProcLimit can make a cgroup here.
func pidsCgroupWorks() bool {
	cg, err := newPidsCgroup(1)
	if err != nil {
		return false
	}
	cg.close()
	return true
}

// pidsCgroup is a cgroup made for one command, below wisp's own, with a
// pids limit.
type pidsCgroup struct {
	dir string
}

func newPidsCgroup(max int) (*pidsCgroup, error) {
	parent, err := ownPidsCgroup()
	if err != nil {
		return nil, err
	}
	var b [6]byte
	rand.Read(b[:])
	dir := filepath.Join(parent, "wisp-sandbox-"+hex.EncodeToString(b[:]))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	cg := &pidsCgroup{dir: dir}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		cg.close()
		return nil, err
	}
	return cg, nil
}

func (c *pidsCgroup) add(pid int) error {
	if err := os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("moving the command into its cgroup: %w", err)
	}
	return nil
}

func (c *pidsCgroup) kill() {
	if os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for range 100 {
		b, err := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		if err != nil || len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

func (c *pidsCgroup) close() {
	c.kill()
	for i := 0; i < 50; i++ {
		err := os.Remove(c.dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || !errors.Is(err, syscall.EBUSY) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ownPidsCgroup returns the folder of this process's cgroup in a hierarchy
// with the pids controller: cgroup v1's pids hierarchy, else cgroup v2.
func ownPidsCgroup() (string, error) {
	v1, v2 := "", ""
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = parts[2]
		}
		for c := range strings.SplitSeq(parts[1], ",") {
			if c == "pids" {
				v1 = parts[2]
			}
		}
	}
	f.Close()
	mounts, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer mounts.Close()
	var v1dir, v2dir string
	sc = bufio.NewScanner(mounts)
	for sc.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... - FSTYPE SOURCE SUPEROPTIONS
		left, right, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 {
			continue
		}
		root, point := lf[3], lf[4]
		switch rf[0] {
		case "cgroup":
			if v1 != "" && slices.Contains(strings.Split(rf[2], ","), "pids") && within(v1, root) {
				v1dir = filepath.Join(point, strings.TrimPrefix(v1, root))
			}
		case "cgroup2":
			if v2 != "" && within(v2, root) {
				v2dir = filepath.Join(point, strings.TrimPrefix(v2, root))
			}
		}
	}
	if v1dir != "" {
		return v1dir, nil
	}
	if v2dir != "" {
		if b, err := os.ReadFile(filepath.Join(v2dir, "cgroup.subtree_control")); err == nil && slices.Contains(strings.Fields(string(b)), "pids") {
			return v2dir, nil
		}
	}
	return "", errors.New("no pids cgroup")
}
