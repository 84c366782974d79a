package terminal

import (
	"os"
	"strconv"
)

// ttyName names the terminal f is, such as /dev/pts/3, for the record of
// who answered; "" when it cannot be told.
func ttyName(f *os.File) string {
	name, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return ""
	}
	return name
}
