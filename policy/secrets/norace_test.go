//go:build !race

package secrets

// raceEnabled says the race detector is on; the largest corpora shrink
// under it to keep the run short.
const raceEnabled = false
