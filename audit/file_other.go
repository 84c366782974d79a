//go:build !unix

package audit

// noFollow is 0 where open(2) has no O_NOFOLLOW; openFile's Lstat check
// stands in for it there.
const noFollow = 0
