package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// exampleLine is what an error about a line's form shows as a good one.
const exampleLine = `{"type":"message","text":"hello"}`

// clientTypes are the types the client sends, as Hello announces them;
// TypeQuestions besides them where the face takes it.
var clientTypes = []string{TypeMessage, TypeChoose, TypeApprove, TypeDeny, TypeCancel}

// scopeNames are the scopes an Approve may name.
var scopeNames = []string{"once", "session", "project", "always"}

// Decode reads one line of either direction (a trailing newline is
// allowed) into its type: a Hello, a Question, a Choose, and so on.
// Unknown keys are ignored; a key set twice in one object, at any depth,
// is refused, since the two readings of such a line differ.
//
// Lines the client sends are checked as wisp checks them: a Message has
// text; a Choose has an id and exactly one of option (from 1), text (not
// empty), none, decline and answers, each answer well formed; an Approve
// has an id and a scope wisp knows. Lines wisp writes are read as they
// come. Whether an answer fits its choice is for Face.Handle to say.
//
// The error wraps ErrNotJSON, ErrUnknownType or ErrBadLine and says what
// was wrong and how to mend it.
func Decode(b []byte) (Line, error) {
	b = bytes.TrimSpace(b)
	switch {
	case !utf8.Valid(b):
		return nil, fmt.Errorf("%w: it is not valid UTF-8; send UTF-8 text, one JSON object a line", ErrNotJSON)
	case len(b) == 0:
		return nil, fmt.Errorf("%w: it is empty; send one JSON object a line, such as %s", ErrNotJSON, exampleLine)
	case b[0] != '{':
		if json.Valid(b) {
			return nil, fmt.Errorf("%w: it is JSON, but not an object; send one JSON object a line, such as %s", ErrNotJSON, exampleLine)
		}
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&fields); err != nil {
		return nil, fmt.Errorf("%w: %s; send one JSON object a line, such as %s", ErrNotJSON, jsonProblem(err), exampleLine)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%w: it holds more than one JSON value; send one object a line", ErrNotJSON)
	}
	if problem := duplicateKey(b); problem != "" {
		return nil, fmt.Errorf("%w: %s", ErrBadLine, problem)
	}
	typ, err := stringField(fields, "type")
	if err != nil {
		return nil, err
	}
	switch typ {
	case TypeMessage:
		return decodeMessage(b)
	case TypeChoose:
		return decodeChoose(b)
	case TypeApprove:
		return decodeApprove(b)
	case TypeDeny:
		var w struct {
			ID *string `json:"id"`
		}
		if err := unmarshal(b, typ, &w); err != nil {
			return nil, err
		}
		id, err := needID(typ, w.ID)
		if err != nil {
			return nil, err
		}
		return Deny{ID: id}, nil
	case TypeCancel:
		return Cancel{}, nil
	case TypeQuestions:
		return decodeQuestions(b)
	case TypeCommand:
		return decodeCommand(b)
	case TypeChoice:
		kind, err := stringField(fields, "kind")
		if err != nil {
			return nil, err
		}
		switch kind {
		case KindQuestion:
			return decodeAs[Question](b, typ)
		case KindCard:
			return decodeAs[Card](b, typ)
		case KindApproval:
			return decodeAs[Approval](b, typ)
		}
		return nil, fmt.Errorf("%w: a choice of kind %q; the kinds are question, card and approval", ErrUnknownType, kind)
	case TypeTool:
		phase, err := stringField(fields, "phase")
		if err != nil {
			return nil, err
		}
		switch phase {
		case PhaseCall:
			return decodeAs[ToolCall](b, typ)
		case PhaseOutput:
			return decodeAs[ToolOutput](b, typ)
		case PhaseResult:
			return decodeAs[ToolResult](b, typ)
		}
		return nil, fmt.Errorf("%w: a tool line of phase %q; the phases are call, output and result", ErrUnknownType, phase)
	case TypeHello:
		return decodeAs[Hello](b, typ)
	case TypeTurn:
		return decodeAs[Turn](b, typ)
	case TypeDelta:
		return decodeAs[Delta](b, typ)
	case TypeNote:
		return decodeAs[Note](b, typ)
	case TypeSettled:
		return decodeAs[Settled](b, typ)
	case TypeEnd:
		var e End
		if err := unmarshal(b, typ, &e); err != nil {
			return nil, err
		}
		if e.Error != "" {
			e.Reply = "" // a failed turn has no reply
		}
		return e, nil
	case TypeError:
		return decodeAs[Error](b, typ)
	case TypeBye:
		return Bye{}, nil
	}
	return nil, fmt.Errorf("%w %q; send one of %s", ErrUnknownType, typ, strings.Join(clientTypes, ", "))
}

// duplicateKey returns what is wrong with a line that sets a key twice in
// one of its objects, at any depth, or "". Keys match as encoding/json
// matches them, whatever their case, so "option" and "Option" are one
// key. A key is named by its path from the line's top, as encoding/json
// names fields ("answers.option"). b must be valid JSON whose depth the
// decoder that checked it bounded.
func duplicateKey(b []byte) string {
	type frame struct {
		path    string            // the keys leading here, joined by '.'
		keys    map[string]string // folded key → the key as written; nil for an array
		wantKey bool              // an object's next token is a key or its end
		key     string            // the key whose value is being read
	}
	var stack []*frame
	// value is called after a whole value: its object waits for a key.
	value := func() {
		if n := len(stack); n > 0 && stack[n-1].keys != nil {
			stack[n-1].wantKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if top != nil && top.wantKey {
			k, ok := tok.(string)
			if !ok { // the object's end
				stack = stack[:len(stack)-1]
				value()
				continue
			}
			folded := foldKey(k)
			if first, ok := top.keys[folded]; ok {
				if first == k {
					return fmt.Sprintf("key %q is set twice; keep one", clipKey(joinPath(top.path, k)))
				}
				return fmt.Sprintf("keys %q and %q are one key, set twice (keys match whatever their case); keep one",
					clipKey(joinPath(top.path, first)), clipKey(joinPath(top.path, k)))
			}
			top.keys[folded] = k
			top.wantKey, top.key = false, k
			continue
		}
		path := ""
		if top != nil {
			path = top.path
			if top.keys != nil {
				path = joinPath(path, top.key)
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{path: path, keys: map[string]string{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{path: path})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			value()
		default:
			value()
		}
	}
}

// foldKey maps each rune of k to the least rune of its case-folding
// orbit, so that two keys fold alike exactly when bytes.EqualFold (and
// so encoding/json) takes them for one.
func foldKey(k string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, k)
}

// clipKey shortens a long key for an error line.
func clipKey(k string) string {
	if len(k) <= 80 {
		return k
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(k[cut]) {
		cut--
	}
	return k[:cut] + "…"
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// stringField returns the string at key, which must be there.
func stringField(fields map[string]json.RawMessage, key string) (string, error) {
	raw, ok := fields[key]
	if !ok {
		return "", fmt.Errorf("%w: it has no %q; every line has one, such as %s", ErrBadLine, key, exampleLine)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", fmt.Errorf("%w: its %q is not a string", ErrBadLine, key)
	}
	return s, nil
}

func decodeAs[T Line](b []byte, typ string) (Line, error) {
	var v T
	if err := unmarshal(b, typ, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// unmarshal decodes b into v, saying which key has the wrong form.
func unmarshal(b []byte, typ string, v any) error {
	err := json.Unmarshal(b, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		kind := te.Type.Kind().String()
		if n, ok := strings.CutPrefix(te.Value, "number "); ok && wholeNumber(n) && jsonKind(kind) == jsonWhole {
			// A whole number, as it should be, but past what the key can
			// hold.
			size := "large"
			if strings.HasPrefix(n, "-") {
				size = "small"
			}
			return fmt.Errorf("%w: in a %s line, %q is out of range: %s is too %s", ErrBadLine, typ, te.Field, clipNumber(n), size)
		}
		return fmt.Errorf("%w: in a %s line, %q must be %s, not %s", ErrBadLine, typ, te.Field, jsonKind(kind), te.Value)
	}
	return fmt.Errorf("%w: %s line: %s", ErrBadLine, typ, jsonProblem(err))
}

// wholeNumber reports whether the JSON number n is written as a whole
// number: digits, with a minus sign or not, and no fraction or exponent.
func wholeNumber(n string) bool {
	n = strings.TrimPrefix(n, "-")
	return n != "" && strings.Trim(n, "0123456789") == ""
}

// clipNumber shortens a long number for an error line.
func clipNumber(n string) string {
	if len(n) > 24 {
		return n[:20] + "…"
	}
	return n
}

const jsonWhole = "a number (a whole one)"

// jsonKind names a Go kind as JSON does.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"), strings.HasPrefix(k, "float"):
		return jsonWhole
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice":
		return "an array"
	case k == "struct", k == "map":
		return "an object"
	}
	return "another kind of value"
}

// jsonProblem says what encoding/json found, without Go's type names.
func jsonProblem(err error) string {
	s := err.Error()
	s = strings.TrimPrefix(s, "json: ")
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "it ends before the object does"
	}
	return s
}

func needID(typ string, id *string) (string, error) {
	if id == nil || *id == "" {
		return "", fmt.Errorf("%w: a %s line needs the \"id\" of the choice it answers", ErrBadLine, typ)
	}
	return *id, nil
}

func decodeMessage(b []byte) (Line, error) {
	var w struct {
		Text *string `json:"text"`
	}
	if err := unmarshal(b, TypeMessage, &w); err != nil {
		return nil, err
	}
	if w.Text == nil || strings.TrimSpace(*w.Text) == "" {
		return nil, fmt.Errorf("%w: a message needs \"text\", the person's message, not empty", ErrBadLine)
	}
	return Message{Text: *w.Text}, nil
}

func decodeQuestions(b []byte) (Line, error) {
	var w struct {
		Action *string `json:"action"`
		ID     *string `json:"id"`
	}
	if err := unmarshal(b, TypeQuestions, &w); err != nil {
		return nil, err
	}
	actions := []string{ActionList, ActionAnswer, ActionDecline}
	switch {
	case w.Action == nil:
		return nil, fmt.Errorf("%w: questions needs an \"action\": list, answer or decline", ErrBadLine)
	case !slices.Contains(actions, *w.Action):
		return nil, fmt.Errorf("%w: unknown action %q; the actions are list, answer and decline", ErrBadLine, *w.Action)
	case *w.Action == ActionList:
		return Questions{Action: ActionList}, nil
	}
	if w.ID == nil || *w.ID == "" {
		return nil, fmt.Errorf("%w: questions %s needs the \"id\" of a waiting question, as a note of kind question names it", ErrBadLine, *w.Action)
	}
	return Questions{Action: *w.Action, ID: *w.ID}, nil
}

func decodeCommand(b []byte) (Line, error) {
	var w struct {
		Name *string  `json:"name"`
		Args []string `json:"args"`
	}
	if err := unmarshal(b, TypeCommand, &w); err != nil {
		return nil, err
	}
	if w.Name == nil || strings.TrimSpace(*w.Name) == "" {
		return nil, fmt.Errorf("%w: a command needs a \"name\", such as models or config, and its \"args\": {\"type\":\"command\",\"name\":\"models\",\"args\":[\"list\"]}", ErrBadLine)
	}
	return Command{Name: *w.Name, Args: w.Args}, nil
}

func decodeApprove(b []byte) (Line, error) {
	var w struct {
		ID    *string `json:"id"`
		Scope *string `json:"scope"`
	}
	if err := unmarshal(b, TypeApprove, &w); err != nil {
		return nil, err
	}
	id, err := needID(TypeApprove, w.ID)
	if err != nil {
		return nil, err
	}
	if w.Scope == nil {
		return nil, fmt.Errorf("%w: approve needs a \"scope\", one of the approval's scopes, such as \"once\"", ErrBadLine)
	}
	if !slices.Contains(scopeNames, *w.Scope) {
		return nil, fmt.Errorf("%w: unknown scope %q; the scopes are %s, and the approval's scopes say which it offers", ErrBadLine, *w.Scope, strings.Join(scopeNames, ", "))
	}
	return Approve{ID: id, Scope: *w.Scope}, nil
}

type answerWire struct {
	Option  *int    `json:"option"`
	Options *[]int  `json:"options"`
	Text    *string `json:"text"`
	Decline *bool   `json:"decline"`
}

func decodeChoose(b []byte) (Line, error) {
	var w struct {
		ID      *string       `json:"id"`
		Option  *int          `json:"option"`
		Text    *string       `json:"text"`
		None    *bool         `json:"none"`
		Decline *bool         `json:"decline"`
		Answers *[]answerWire `json:"answers"`
	}
	if err := unmarshal(b, TypeChoose, &w); err != nil {
		return nil, err
	}
	id, err := needID(TypeChoose, w.ID)
	if err != nil {
		return nil, err
	}
	var given []string
	if w.Option != nil {
		given = append(given, "option")
	}
	if w.Text != nil {
		given = append(given, "text")
	}
	if w.None != nil && *w.None {
		given = append(given, "none")
	}
	if w.Decline != nil && *w.Decline {
		given = append(given, "decline")
	}
	if w.Answers != nil {
		given = append(given, "answers")
	}
	switch {
	case len(given) == 0:
		return nil, fmt.Errorf("%w: choose needs one of \"option\" (from 1), \"text\", \"none\": true or \"decline\": true for a question, or \"answers\" for a card", ErrBadLine)
	case len(given) > 1:
		return nil, fmt.Errorf("%w: choose takes one of option, text, none, decline and answers, but has %s", ErrBadLine, strings.Join(given, " and "))
	}
	c := Choose{ID: id, None: w.None != nil && *w.None, Decline: w.Decline != nil && *w.Decline}
	switch {
	case w.Option != nil:
		if *w.Option < 1 {
			return nil, fmt.Errorf("%w: option %d is out of range: options are numbered from 1", ErrBadLine, *w.Option)
		}
		c.Option = *w.Option
	case w.Text != nil:
		if *w.Text == "" {
			return nil, fmt.Errorf("%w: text is empty; send the answer, or \"decline\": true", ErrBadLine)
		}
		c.Text = *w.Text
	case w.Answers != nil:
		if len(*w.Answers) == 0 {
			return nil, fmt.Errorf("%w: answers is empty; send one answer a question of the card, in order", ErrBadLine)
		}
		for i, a := range *w.Answers {
			ca, err := cardAnswer(i+1, a)
			if err != nil {
				return nil, err
			}
			c.Answers = append(c.Answers, ca)
		}
	}
	return c, nil
}

func cardAnswer(n int, a answerWire) (CardAnswer, error) {
	decline := a.Decline != nil && *a.Decline
	switch {
	case decline && (a.Option != nil || a.Options != nil || a.Text != nil):
		return CardAnswer{}, fmt.Errorf("%w: answer %d declines and answers at once; send \"decline\": true alone, or the answer", ErrBadLine, n)
	case decline:
		return CardAnswer{Decline: true}, nil
	case a.Option == nil && a.Options == nil && a.Text == nil:
		return CardAnswer{}, fmt.Errorf("%w: answer %d needs \"option\", \"options\", \"text\" or \"decline\": true", ErrBadLine, n)
	case a.Option != nil && a.Options != nil:
		return CardAnswer{}, fmt.Errorf("%w: answer %d has both option and options; send option for a single choice, options for a multi-select one", ErrBadLine, n)
	}
	var ca CardAnswer
	if a.Option != nil {
		if *a.Option < 1 {
			return CardAnswer{}, fmt.Errorf("%w: answer %d: option %d is out of range: options are numbered from 1", ErrBadLine, n, *a.Option)
		}
		ca.Option = *a.Option
	}
	if a.Options != nil {
		if len(*a.Options) == 0 {
			return CardAnswer{}, fmt.Errorf("%w: answer %d: options is empty; choose at least one, or send \"decline\": true", ErrBadLine, n)
		}
		for _, o := range *a.Options {
			if o < 1 {
				return CardAnswer{}, fmt.Errorf("%w: answer %d: option %d is out of range: options are numbered from 1", ErrBadLine, n, o)
			}
			if slices.Contains(ca.Options, o) {
				return CardAnswer{}, fmt.Errorf("%w: answer %d: option %d is there twice", ErrBadLine, n, o)
			}
			ca.Options = append(ca.Options, o)
		}
	}
	if a.Text != nil {
		if *a.Text == "" {
			return CardAnswer{}, fmt.Errorf("%w: answer %d: text is empty; send the answer, or \"decline\": true", ErrBadLine, n)
		}
		ca.Text = *a.Text
	}
	return ca, nil
}
