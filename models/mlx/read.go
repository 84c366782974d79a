package mlx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Bounds on what List and Show read of one file.
const (
	maxJSON     = 8 << 20  // config.json, the index, tokenizer_config.json
	maxTemplate = 1 << 20  // a .jinja chat template
	tokenizerIn = 1 << 20  // how far into tokenizer.json added tokens are looked for
	readmeIn    = 64 << 10 // how far into README.md the front matter is looked for
)

// Why a file could not be used, beyond fs.ErrNotExist and tooLarge.
var (
	errNotRegular = errors.New("not a file")
	errNotJSON    = errors.New("not a JSON object")
)

// tooLarge says a file is longer than the limit of what is read of it.
type tooLarge struct{ limit int64 }

func (e tooLarge) Error() string { return fmt.Sprintf("larger than %d MiB", e.limit>>20) }

// readFile reads the file at path, following links, refusing one longer
// than limit bytes (tooLarge) and anything but a regular file
// (errNotRegular), so that a pipe cannot block a read.
func readFile(path string, limit int64) ([]byte, error) {
	data, err := readPrefix(path, limit+1)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge{limit}
	}
	return data, nil
}

// readPrefix reads at most n bytes from the start of the regular file at
// path, following links.
func readPrefix(path string, n int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// readObject reads the JSON object in the file at path, at most maxJSON
// bytes, keeping each member's value raw. Anything that is not a JSON
// object is errNotJSON.
func readObject(path string) (map[string]json.RawMessage, error) {
	data, err := readFile(path, maxJSON)
	if err != nil {
		return nil, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, errNotJSON
	}
	return obj, nil
}

// problem is the line that says why file could not be used, ending with
// how to mend it.
func problem(file string, err error, mend string) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s is missing; %s", file, mend)
	case errors.As(err, new(tooLarge)):
		return fmt.Sprintf("%s is %v; %s", file, err, mend)
	case errors.Is(err, errNotJSON):
		return fmt.Sprintf("%s is not valid JSON; %s", file, mend)
	case errors.Is(err, errNotRegular):
		return fmt.Sprintf("%s is not a file; %s", file, mend)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Sprintf("%s cannot be read (%v); %s", file, err, mend)
}

// member decodes obj[key] into a T, reporting false when the member is
// absent, null or of another type.
func member[T any](obj map[string]json.RawMessage, key string) (T, bool) {
	var v T
	raw, ok := obj[key]
	if !ok || string(raw) == "null" {
		return v, false
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, false
	}
	return v, true
}

// integer decodes obj[key] as a whole number, accepting 40960 and 40960.0;
// it reports false for anything else, or for a number below zero.
func integer(obj map[string]json.RawMessage, key string) (int64, bool) {
	n, ok := member[json.Number](obj, key)
	if !ok {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, i >= 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || f < 0 || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}
