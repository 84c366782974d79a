package config

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wisp-agent/wisp"
)

// SetOptions configure Store.Set. A nil *SetOptions or a zero field means
// the default given beside the field.
type SetOptions struct {
	// Events records each change to a security setting, as
	// config.change, before it is saved: the audit log. nil: no change
	// to a security setting is made, since none could be recorded.
	Events wisp.EventSink
	// Session names the session in the records.
	Session string
	// Tools are the tools there are, the names tools.disabled may hold:
	// a name that is none of them is refused, as a mistake the person
	// would not see until the tool they meant stayed on. nil: any name of
	// a tool's form.
	Tools []string
}

// Set changes the setting key to value under the lock, reading value as
// Config.Set does, and returns the new value as Get prints it. A change
// to a security setting (Key.Security) is the person's, and is recorded
// before it is saved: each goes to opts.Events as config.change (Records
// says how). When one cannot be recorded nothing is saved, and the error
// wraps wisp.ErrNotRecorded, as every record that fails does. A bad key or value is refused as Config.Set
// refuses it, and nothing is recorded.
func (s Store) Set(ctx context.Context, key, value string, opts *SetOptions) (string, error) {
	var o SetOptions
	if opts != nil {
		o = *opts
	}
	var v string
	err := s.Update(ctx, func(c *Config) error {
		before := *c
		if err := c.Set(key, value); err != nil {
			return err
		}
		if err := knownTools(key, c.Tools.Disabled, o.Tools); err != nil {
			return err
		}
		v, _ = c.Get(key)
		return record(ctx, o, Records(Diff(before, *c)))
	})
	return v, err
}

// Records returns what the audit log records of changes: for each
// change to a security setting, a list's key once with each name added
// or removed, any other key with its value from and to. Other settings
// are not recorded.
func Records(changes []Change) []wisp.ConfigChangeData {
	var out []wisp.ConfigChangeData
	for _, ch := range changes {
		switch {
		case !ch.Key.Security:
		case ch.Key.Kind == "list":
			for _, n := range ch.Added {
				out = append(out, wisp.ConfigChangeData{Key: ch.Key.Name, Added: n})
			}
			for _, n := range ch.Removed {
				out = append(out, wisp.ConfigChangeData{Key: ch.Key.Name, Removed: n})
			}
		default:
			out = append(out, wisp.ConfigChangeData{Key: ch.Key.Name, From: ch.From, To: ch.To})
		}
	}
	return out
}

// record hands each of records to o.Events, the person's, in o.Session.
// A record that fails stops the rest.
func record(ctx context.Context, o SetOptions, records []wisp.ConfigChangeData) error {
	if len(records) == 0 {
		return nil
	}
	if o.Events == nil {
		return unrecorded(errors.New("no audit log was given to record it"))
	}
	for _, data := range records {
		// Not cancellable: a change is recorded whole or not made.
		e := wisp.Event{Session: o.Session, Source: wisp.SourcePerson, Data: data}
		if err := o.Events.Record(context.WithoutCancel(ctx), e); err != nil {
			return unrecorded(err)
		}
	}
	return nil
}

// unrecorded is the error of a change that err kept from being recorded.
func unrecorded(err error) error {
	return &lineError{
		msg:  fmt.Sprintf("the audit log could not record the change (%s); nothing was changed", strings.TrimPrefix(oneLine(err.Error()), wisp.ErrNotRecorded.Error()+": ")),
		errs: []error{wisp.ErrNotRecorded, err},
	}
}

// knownTools refuses a value of tools.disabled, key, that names a tool
// not among tools (when tools is not nil).
func knownTools(key string, disabled, tools []string) error {
	if key != "tools.disabled" || tools == nil {
		return nil
	}
	for _, name := range disabled {
		if !slices.Contains(tools, name) {
			return badValue(fmt.Sprintf("tools.disabled names %q, which is no tool; the tools are %s", name, strings.Join(tools, ", ")))
		}
	}
	return nil
}
