package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// sandboxExec is the macOS sandbox runner, by absolute path so that no PATH
// entry can stand in for it.
const sandboxExec = "/usr/bin/sandbox-exec"

// profileBase is the start of every profile: nothing is allowed but what
// follows, reads are allowed everywhere, and writes only to the private
// temp folder and a few devices.
const profileBase = `(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow ipc-posix-shm* ipc-posix-sem)
(allow file-read*)
(allow file-write-data file-ioctl
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper"))
(allow file-write* (subpath (param "TMP")))
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.coreservices.launchservicesd")
  (global-name "com.apple.lsd.mapdb"))
`

// profileNetwork lets the command reach the network.
const profileNetwork = `(allow network* system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration"))
`

// profile returns the sandbox-exec profile for sp and the parameters it
// reads. Paths are parameters, never part of the profile's text, so that no
// path can add a rule.
func profile(sp *spec) (text string, params []string) {
	var b strings.Builder
	b.WriteString(profileBase)
	params = append(params, "TMP="+sp.Temp)
	if sp.Mode == WorkspaceWrite {
		b.WriteString("(allow file-write* (subpath (param \"WORKSPACE\")))\n")
		params = append(params, "WORKSPACE="+sp.Workspace)
	}
	if sp.Network {
		b.WriteString(profileNetwork)
	}
	// Later rules win: the denials come last.
	for i, p := range sp.ReadOnly {
		k := fmt.Sprintf("RO_%d", i)
		fmt.Fprintf(&b, "(deny file-write* (subpath (param %q)))\n", k)
		params = append(params, k+"="+p)
	}
	for i, p := range sp.Hide {
		k := fmt.Sprintf("HIDE_%d", i)
		fmt.Fprintf(&b, "(deny file-read* file-write* (subpath (param %q)))\n", k)
		params = append(params, k+"="+p)
		// Renaming a folder above a hidden path would move it out from
		// under the rule: no folder above one may be renamed or removed.
		for j, dir := 0, filepath.Dir(p); dir != "/" && dir != "."; j, dir = j+1, filepath.Dir(dir) {
			k := fmt.Sprintf("HIDE_%d_UP_%d", i, j)
			fmt.Fprintf(&b, "(deny file-write-unlink (literal (param %q)))\n", k)
			params = append(params, k+"="+dir)
		}
	}
	return b.String(), params
}
