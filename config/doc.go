// Package config reads and writes wisp's settings, the file config.json in
// wisp's home folder.
//
// The file is nested JSON with lowerCamel keys; each setting has a dotted
// name that is its contract ("tools.ask" is "ask" inside "tools"):
//
//	{
//	  "tools": {"ask": false, "disabled": []},
//	  "inquiry": {"timeoutSeconds": 0}
//	}
//
// [Keys] lists the settings with their kinds, defaults and one-line docs;
// [Config.Set] and [Config.Get] read and print values the way a person
// types them on the command line. [Load] reads the file, [Save] replaces it
// atomically and durably with mode 0600, and [Update] does both under a
// lock so that concurrent changes never lose one another.
//
// A setting applies from the next conversation: callers read the file once
// when a conversation starts.
//
// Every error is one line that says what was wrong and how to mend it, and
// matches one of [ErrUnknownKey], [ErrBadValue] or [ErrBadFile] under
// errors.Is, apart from errors of the file system and the lock, which wrap
// what the system said.
package config
