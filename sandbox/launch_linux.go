package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// brokers are the sockets and socket folders of services that act for
// whoever connects (session buses, container engines, systemd, agents). A
// network namespace does not hide them: they are files. Each one that
// exists is hidden like the wisp home.
var brokers = []string{
	"/run/user",
	"/run/dbus",
	"/run/docker.sock",
	"/run/containerd",
	"/run/podman",
	"/run/systemd/private",
	"/run/snapd.socket",
	"/run/snapd-snap.socket",
	"/var/run/docker.sock",
}

// launchAttr is how Run starts the launcher: in a session of its own, and
// for a confined command in new user, mount and PID namespaces (and a
// network namespace when offline), as the same user, with the capabilities
// the launcher needs in its user namespace to mount and to raise the
// loopback interface.
func launchAttr(sp *spec) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	if !sp.Confine {
		return attr
	}
	attr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID
	if !sp.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	return attr
}

// confine sets up the sandbox in the launcher, up to but not including
// Landlock, which finish applies: the mounts, the loopback interface,
// the limits and the working folder.
func confine(sp *spec) (probeReport, error) {
	// Capabilities, no_new_privs and Landlock belong to a thread: do all
	// of it on the one that execs.
	runtime.LockOSThread()
	var rep probeReport
	if sp.Confine {
		abi, err := llsyscall.LandlockGetABIVersion()
		if err != nil || abi < 1 {
			return rep, errors.New("the kernel has no Landlock (it needs Linux 5.13 or later with Landlock enabled)")
		}
		rep.LandlockABI = abi
		if abi < 2 {
			rep.Weaknesses = append(rep.Weaknesses, "Landlock ABI 1: renaming or linking a file into another folder fails")
		}
		weak, err := mountSandbox(sp)
		if err != nil {
			return rep, err
		}
		rep.Weaknesses = append(rep.Weaknesses, weak...)
		if !sp.Network {
			if err := loopbackUp(); err != nil {
				rep.Weaknesses = append(rep.Weaknesses, "loopback interface down: "+err.Error())
			}
		}
	}
	if err := setLimits(sp); err != nil {
		return rep, err
	}
	if err := unix.Chdir(sp.Dir); err != nil {
		return rep, fmt.Errorf("entering %s: %w", sp.Dir, err)
	}
	if sp.Confine {
		// Build and apply the ruleset even when probing, so a probe fails
		// where a run would.
		if err := restrict(sp); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// mountSandbox makes the launcher's mount namespace the command's view of
// the file system. It returns what it could not do but is not needed.
func mountSandbox(sp *spec) (weak []string, err error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("making mounts private: %w", err)
	}
	ws, err := unix.Open(sp.Workspace, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening the workspace: %w", err)
	}
	defer unix.Close(ws)

	// Everything read-only: Landlock leaves chmod, chown, utimes and
	// such to file permissions; a read-only mount refuses them.
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID}); err != nil {
		return nil, fmt.Errorf("making the file system read-only: %w", err)
	}
	// The private temp folder becomes /tmp: the host's temp files are out
	// of sight, and programs that write to /tmp work.
	if err := bind(sp.Temp, "/tmp", true); err != nil {
		return nil, fmt.Errorf("mounting the private temp folder: %w", err)
	}
	// The workspace, writable in workspace-write; a workspace inside the
	// host's /tmp is mounted again at its own path in the private one.
	if underTmp := within(sp.Workspace, "/tmp"); underTmp || sp.Mode == WorkspaceWrite {
		src := sp.Workspace
		if underTmp {
			if err := os.MkdirAll(sp.Workspace, 0o755); err != nil {
				return nil, fmt.Errorf("making the workspace's path in /tmp: %w", err)
			}
			src = "/proc/self/fd/" + strconv.Itoa(ws)
		}
		if err := bind(src, sp.Workspace, sp.Mode == WorkspaceWrite); err != nil {
			return nil, fmt.Errorf("mounting the workspace: %w", err)
		}
	}
	for _, p := range sp.ReadOnly {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err := bind(p, p, false); err != nil {
			return nil, fmt.Errorf("keeping %s read-only: %w", p, err)
		}
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			weak = append(weak, "/dev/shm read-only: "+err.Error())
		}
	}
	// Hidden last, so that a hidden path inside the workspace stays hidden.
	for _, p := range sp.Hide {
		if err := hide(p); err != nil {
			return nil, fmt.Errorf("hiding %s: %w", p, err)
		}
	}
	for _, p := range brokers {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if err := hide(real); err != nil {
			return nil, fmt.Errorf("hiding %s: %w", p, err)
		}
	}
	// A /proc of the command's own PID namespace: it sees its own
	// processes only.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		weak = append(weak, "host /proc kept (a fresh one could not be mounted: "+err.Error()+"): the command sees the host's process list")
	}
	return weak, nil
}

// bind mounts src on dst, writable or read-only.
func bind(src, dst string, writable bool) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if writable {
		attr = unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	}
	return unix.MountSetattr(unix.AT_FDCWD, dst, 0, &attr)
}

// hide covers p: a folder with an empty read-only one nobody may enter, a
// file or socket with an empty read-only device. A missing path is left.
func hide(p string) error {
	fi, err := os.Lstat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=000,size=4k")
	}
	return bind("/dev/null", p, false)
}

// loopbackUp raises lo in the command's network namespace, so that it can
// serve and reach itself on 127.0.0.1.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// restrict applies Landlock to the calling thread: read and execute
// everywhere, write only in the private /tmp, /dev/shm, a few devices and,
// in workspace-write, the workspace; no abstract Unix socket or signal
// outside the sandbox.
func restrict(sp *spec) error {
	cfg := landlock.Config{
		HandledAccessFS: landlock.V11.HandledAccessFS,
		Scoped:          landlock.V11.Scoped,
	}.BestEffort()
	writable := []string{"/tmp"}
	if sp.Mode == WorkspaceWrite {
		writable = append(writable, sp.Workspace)
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs(writable...).WithRefer().WithResolveUnix(),
		landlock.RWDirs("/dev/shm").WithRefer().IgnoreIfMissing(),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("the kernel has no Landlock")
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := llsyscall.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("applying Landlock: %w", err)
	}
	return nil
}

// Secure bits (linux/securebits.h) that keep uid 0 from regaining
// capabilities at exec or by ambient raise.
const (
	secbitNoRoot               = 1 << 0
	secbitNoRootLocked         = 1 << 1
	secbitNoSetuidFixup        = 1 << 2
	secbitNoSetuidFixupLocked  = 1 << 3
	secbitKeepCapsLocked       = 1 << 5
	secbitNoCapAmbientRaise    = 1 << 6
	secbitNoCapAmbientRaiseLck = 1 << 7
)

// finish is the launcher's last step before exec: no capability survives
// (not even for uid 0 in the user namespace), the process limit is set
// (last, since the launcher's own threads count), and no descriptor but 0,
// 1 and 2 passes to the command.
func finish(sp *spec) error {
	if sp.Confine {
		for c := 0; c <= 63; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
				if errors.Is(err, unix.EINVAL) {
					break
				}
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
		bits := secbitNoRoot | secbitNoRootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
			secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLck
		if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
			return fmt.Errorf("setting secure bits: %w", err)
		}
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return fmt.Errorf("clearing ambient capabilities: %w", err)
		}
		var data [2]unix.CapUserData
		if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
			return fmt.Errorf("dropping capabilities: %w", err)
		}
		// Counted per user in the user namespace, so this bounds the
		// command's processes and threads alone.
		n := uint64(sp.Processes)
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &unix.Rlimit{Cur: n, Max: n}); err != nil {
			return fmt.Errorf("setting the process limit: %w", err)
		}
	}
	unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	return nil
}
