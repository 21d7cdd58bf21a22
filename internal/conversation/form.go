package conversation

import (
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
)

// A form elicitation's schema becomes a Form: its fields in the order to ask them, each
// with what it accepts, so that every view asks the same questions and refuses the same
// answers before anything reaches the agent. Values travel as Go values: string,
// float64 (number), int64 (integer), bool, []string (multiple choice).

// Form is what a form elicitation asks.
type Form struct {
	Title       string
	Description string
	Fields      []Field
	// Answerable is false when a required field is of a kind parley does not know: the
	// only answers are then decline and cancel.
	Answerable bool
}

// FieldKind is what a field takes.
type FieldKind string

const (
	FieldText        FieldKind = "text"         // a string
	FieldNumber      FieldKind = "number"       // a number
	FieldInteger     FieldKind = "integer"      // a whole number
	FieldBoolean     FieldKind = "boolean"      // yes or no
	FieldChoice      FieldKind = "choice"       // one of Choices
	FieldMultiChoice FieldKind = "multi_choice" // some of Choices
	FieldUnknown     FieldKind = "unknown"      // a kind parley does not know: left unanswered
)

// Field is one question of a form.
type Field struct {
	Name        string // the property name the answer goes under
	Title       string
	Description string
	Kind        FieldKind
	Required    bool
	// Secret: what is typed must not be shown (a password, a token, a key). The schema
	// has no word for it, so parley decides from its format, its _meta, writeOnly, and
	// its name and title.
	Secret  bool
	Default any // the value to offer, nil when none
	Choices []Choice

	MinLength, MaxLength *int     // text, in characters
	Pattern              string   // text: a regular expression (Go's RE2) the whole answer must match
	Format               string   // text: email, uri, date, date-time (or one parley does not check)
	Min, Max             *float64 // number, integer
	MinItems, MaxItems   *int     // multiple choice
	pattern              *regexp.Regexp
}

// Choice is one value of a choice field.
type Choice struct {
	Value       string
	Title       string
	Description string
}

// Label is how a view names the field: its title, else its name.
func (f Field) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// newForm reads a form elicitation's schema. A schema parley cannot check answers
// against (a pattern that does not compile) is an error: the agent is told its request
// is invalid rather than sent an answer nobody checked.
func newForm(s *acp.ElicitationSchema) (*Form, error) {
	form := &Form{Answerable: true}
	if s == nil {
		return form, nil
	}
	form.Title, form.Description = s.Title, s.Description
	required := map[string]bool{}
	for _, name := range s.Required {
		required[name] = true
	}
	// The fields in the order the schema lists them; any it does not order (a schema
	// made in Go without Order) after them: the required ones as listed, then by name.
	var names []string
	for _, name := range append(slices.Clip(s.Order), s.Required...) {
		if _, ok := s.Properties[name]; ok && !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	var rest []string
	for name := range s.Properties {
		if !slices.Contains(names, name) {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	for _, name := range append(names, rest...) {
		f, err := newField(name, s.Properties[name], required[name])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", name, err)
		}
		if f.Kind == FieldUnknown && f.Required {
			form.Answerable = false
		}
		form.Fields = append(form.Fields, f)
	}
	return form, nil
}

func newField(name string, p acp.ElicitationPropertySchema, required bool) (Field, error) {
	f := Field{Name: name, Required: required, Kind: FieldUnknown}
	switch {
	case p.String != nil:
		s := p.String
		f.Title, f.Description, f.Format, f.Pattern = s.Title, s.Description, string(s.Format), s.Pattern
		f.MinLength, f.MaxLength = uintPtr(s.MinLength), uintPtr(s.MaxLength)
		f.Kind = FieldText
		for _, v := range s.Enum {
			f.Choices = append(f.Choices, Choice{Value: v, Title: v})
		}
		for _, o := range s.OneOf {
			f.Choices = append(f.Choices, Choice{Value: o.Const, Title: o.Title, Description: o.Description})
		}
		if len(f.Choices) > 0 {
			f.Kind = FieldChoice
		}
		if s.Default != nil {
			f.Default = *s.Default
		}
		f.Secret = secretField(name, s.Title, string(s.Format), s.Meta, s.Extra)
		if f.Pattern != "" {
			re, err := regexp.Compile(f.Pattern)
			if err != nil {
				return f, fmt.Errorf("its pattern is not a regular expression parley can check: %w", err)
			}
			f.pattern = re
		}
	case p.Number != nil:
		n := p.Number
		f.Title, f.Description, f.Kind, f.Min, f.Max = n.Title, n.Description, FieldNumber, n.Minimum, n.Maximum
		if n.Default != nil {
			f.Default = *n.Default
		}
	case p.Integer != nil:
		n := p.Integer
		f.Title, f.Description, f.Kind = n.Title, n.Description, FieldInteger
		if n.Minimum != nil {
			v := float64(*n.Minimum)
			f.Min = &v
		}
		if n.Maximum != nil {
			v := float64(*n.Maximum)
			f.Max = &v
		}
		if n.Default != nil {
			f.Default = *n.Default
		}
	case p.Boolean != nil:
		b := p.Boolean
		f.Title, f.Description, f.Kind = b.Title, b.Description, FieldBoolean
		if b.Default != nil {
			f.Default = *b.Default
		}
	case p.Array != nil:
		a := p.Array
		f.Title, f.Description = a.Title, a.Description
		f.MinItems, f.MaxItems = uint64Ptr(a.MinItems), uint64Ptr(a.MaxItems)
		switch {
		case a.Items.String != nil:
			for _, v := range a.Items.String.Enum {
				f.Choices = append(f.Choices, Choice{Value: v, Title: v})
			}
			f.Kind = FieldMultiChoice
		case a.Items.Titled != nil:
			for _, o := range a.Items.Titled.AnyOf {
				f.Choices = append(f.Choices, Choice{Value: o.Const, Title: o.Title, Description: o.Description})
			}
			f.Kind = FieldMultiChoice
		}
		if a.Default != nil {
			f.Default = slices.Clone(a.Default)
		}
	}
	return f, nil
}

func uintPtr(p *uint32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

func uint64Ptr(p *uint64) *int {
	if p == nil {
		return nil
	}
	v := int(min(*p, math.MaxInt32))
	return &v
}

// secretWords in a field's name or title make it secret.
var secretWords = lazy.Regexp(`(?i)pass(word|phrase|code)?|secret|token|api[ _-]?key|private[ _-]?key|credential|\bpin\b|\botp\b`)

// secretField decides whether what is typed for a text field must not be shown: it errs
// on the side of hiding.
func secretField(name, title, format string, meta acp.Meta, extra acp.Extra) bool {
	if format == "password" || secretWords().MatchString(name) || secretWords().MatchString(title) {
		return true
	}
	for _, key := range []string{"secret", "sensitive", "password"} {
		if string(meta[key]) == "true" {
			return true
		}
	}
	var writeOnly bool
	if raw, ok := extra["writeOnly"]; ok && json.Unmarshal(raw, &writeOnly) == nil && writeOnly {
		return true
	}
	return false
}

// errNoAnswer is Parse's error for an empty line where an answer is required.
var errNoAnswer = errors.New("an answer is required")

// Parse reads what the user typed for the field and checks it: the value to send, or nil
// for an optional field left empty (an empty line takes the default, if there is one).
// Choices are given by value, by title or by number (1, 2, …); several are separated by
// commas.
func (f Field) Parse(text string) (any, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		switch {
		case f.Default != nil:
			return f.Check(f.Default)
		case f.Required:
			return nil, errNoAnswer
		}
		return nil, nil
	}
	switch f.Kind {
	case FieldText:
		return f.Check(text)
	case FieldNumber:
		v, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, errors.New("a number is needed")
		}
		return f.Check(v)
	case FieldInteger:
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			return nil, errors.New("a whole number is needed")
		}
		return f.Check(v)
	case FieldBoolean:
		switch strings.ToLower(text) {
		case "y", "yes", "true", "1", "on":
			return true, nil
		case "n", "no", "false", "0", "off":
			return false, nil
		}
		return nil, errors.New("answer yes or no")
	case FieldChoice:
		c, ok := f.choice(text)
		if !ok {
			return nil, fmt.Errorf("choose one of: %s", f.choiceList())
		}
		return c, nil
	case FieldMultiChoice:
		var picked []string
		for part := range strings.SplitSeq(text, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			c, ok := f.choice(part)
			if !ok {
				return nil, fmt.Errorf("%q is not a choice; choose among: %s", part, f.choiceList())
			}
			if !slices.Contains(picked, c) {
				picked = append(picked, c)
			}
		}
		return f.Check(picked)
	}
	return nil, errors.New("parley cannot answer this kind of field")
}

// choice finds a choice by value, title (in any case) or number.
func (f Field) choice(text string) (string, bool) {
	for _, c := range f.Choices {
		if c.Value == text {
			return c.Value, true
		}
	}
	for _, c := range f.Choices {
		if strings.EqualFold(c.Title, text) {
			return c.Value, true
		}
	}
	if n, err := strconv.Atoi(text); err == nil && n >= 1 && n <= len(f.Choices) {
		return f.Choices[n-1].Value, true
	}
	return "", false
}

func (f Field) choiceList() string {
	var vals []string
	for _, c := range f.Choices {
		vals = append(vals, c.Value)
	}
	return strings.Join(vals, ", ")
}

// Check checks a value for the field, as a view that does not type (a web form) gives
// it: JSON numbers and arrays as decoded from JSON are accepted. It returns the value in
// its Go form.
func (f Field) Check(v any) (any, error) {
	switch f.Kind {
	case FieldText, FieldChoice:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("text is needed")
		}
		return s, f.checkText(s)
	case FieldNumber:
		n, ok := number(v)
		if !ok || math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, errors.New("a number is needed")
		}
		return n, f.checkRange(n)
	case FieldInteger:
		n, ok := number(v)
		if !ok || n != math.Trunc(n) || math.Abs(n) > 1<<53 {
			if i, isInt := v.(int64); isInt {
				return i, f.checkRange(float64(i))
			}
			return nil, errors.New("a whole number is needed")
		}
		return int64(n), f.checkRange(n)
	case FieldBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("yes or no is needed")
		}
		return b, nil
	case FieldMultiChoice:
		list, ok := stringList(v)
		if !ok {
			return nil, errors.New("a list of choices is needed")
		}
		for _, s := range list {
			if !slices.ContainsFunc(f.Choices, func(c Choice) bool { return c.Value == s }) {
				return nil, fmt.Errorf("%q is not a choice; choose among: %s", s, f.choiceList())
			}
		}
		if f.MinItems != nil && len(list) < *f.MinItems {
			return nil, fmt.Errorf("choose at least %d", *f.MinItems)
		}
		if f.MaxItems != nil && len(list) > *f.MaxItems {
			return nil, fmt.Errorf("choose at most %d", *f.MaxItems)
		}
		return list, nil
	}
	return nil, errors.New("parley cannot answer this kind of field")
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

func stringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return l, true
	case []any:
		out := make([]string, 0, len(l))
		for _, x := range l {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

func (f Field) checkText(s string) error {
	if f.Kind == FieldChoice {
		if !slices.ContainsFunc(f.Choices, func(c Choice) bool { return c.Value == s }) {
			return fmt.Errorf("choose one of: %s", f.choiceList())
		}
		return nil
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength != nil && n < *f.MinLength {
		return fmt.Errorf("at least %d characters are needed", *f.MinLength)
	}
	if f.MaxLength != nil && n > *f.MaxLength {
		return fmt.Errorf("at most %d characters are allowed", *f.MaxLength)
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		return fmt.Errorf("it must match %s", f.Pattern)
	}
	switch acp.StringFormat(f.Format) {
	case acp.StringFormatEmail:
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return errors.New("an email address is needed (name@example.com)")
		}
	case acp.StringFormatURI:
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return errors.New("a URI is needed (https://…)")
		}
	case acp.StringFormatDate:
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("a date is needed (2026-01-31)")
		}
	case acp.StringFormatDateTime:
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("a date and time is needed (2026-01-31T14:00:00Z)")
		}
	}
	return nil
}

func (f Field) checkRange(n float64) error {
	if f.Min != nil && n < *f.Min {
		return fmt.Errorf("at least %s", strconv.FormatFloat(*f.Min, 'g', -1, 64))
	}
	if f.Max != nil && n > *f.Max {
		return fmt.Errorf("at most %s", strconv.FormatFloat(*f.Max, 'g', -1, 64))
	}
	return nil
}

// Validate checks a whole answer (field name → value, nil or absent for an empty optional
// field) and returns it as the agent receives it. Its errors name the field; they never
// quote a value.
func (form *Form) Validate(content map[string]any) (map[string]json.RawMessage, error) {
	if !form.Answerable {
		return nil, errors.New("parley cannot answer this form: decline or cancel it")
	}
	out := map[string]json.RawMessage{}
	for name := range content {
		if !slices.ContainsFunc(form.Fields, func(f Field) bool { return f.Name == name }) {
			return nil, fmt.Errorf("the form has no field %q", name)
		}
	}
	for _, f := range form.Fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			if f.Required {
				return nil, fmt.Errorf("%s: %w", f.Label(), errNoAnswer)
			}
			continue
		}
		checked, err := f.Check(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Label(), err)
		}
		raw, err := json.Marshal(checked)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Label(), err)
		}
		out[f.Name] = raw
	}
	return out, nil
}

// Hint says what the field takes, in words a form shows beside it ("required, a number,
// 1 to 10"). Its format comes from the agent: a view makes it safe to show.
func (f Field) Hint() string {
	var parts []string
	if f.Required {
		parts = append(parts, "required")
	}
	switch f.Kind {
	case FieldNumber:
		parts = append(parts, "a number")
	case FieldInteger:
		parts = append(parts, "a whole number")
	case FieldBoolean:
		parts = append(parts, "yes or no")
	case FieldChoice:
		parts = append(parts, "one of the numbers or values below")
	case FieldMultiChoice:
		parts = append(parts, "numbers or values below, separated by commas")
	}
	switch {
	case f.Min != nil && f.Max != nil:
		parts = append(parts, fmt.Sprintf("%v to %v", *f.Min, *f.Max))
	case f.Min != nil:
		parts = append(parts, fmt.Sprintf("at least %v", *f.Min))
	case f.Max != nil:
		parts = append(parts, fmt.Sprintf("at most %v", *f.Max))
	}
	switch {
	case f.MinLength != nil && f.MaxLength != nil:
		parts = append(parts, fmt.Sprintf("%d to %d characters", *f.MinLength, *f.MaxLength))
	case f.MinLength != nil:
		parts = append(parts, fmt.Sprintf("at least %d characters", *f.MinLength))
	case f.MaxLength != nil:
		parts = append(parts, fmt.Sprintf("at most %d characters", *f.MaxLength))
	}
	if f.MinItems != nil {
		parts = append(parts, fmt.Sprintf("at least %d", *f.MinItems))
	}
	if f.MaxItems != nil {
		parts = append(parts, fmt.Sprintf("at most %d", *f.MaxItems))
	}
	if f.Format != "" {
		parts = append(parts, f.Format)
	}
	return strings.Join(parts, ", ")
}

// Show is an answer to the field as a summary shows it: never a secret field's.
func (f Field) Show(v any) string {
	if f.Secret {
		return "(hidden)"
	}
	switch x := v.(type) {
	case []string:
		return strings.Join(x, ", ")
	case bool:
		if x {
			return "yes"
		}
		return "no"
	}
	return fmt.Sprint(v)
}
