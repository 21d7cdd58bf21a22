package safety

import (
	"fmt"
	"strings"
	"sync"
)

// problems lists what is wrong with o as written, each saying which option: a name
// written with its dash (the tables name options without them: "output" for --output,
// "o" for -o), a blank or other character that is no option letter in short or
// shortArg, an option listed twice in one field, and one listed in two places that
// disagree (harmless and of a kind, or of two kinds: the judge would take the first it
// finds, and a write could be read as harmless). An option listed both without and
// with a value (short and shortArg, long and longArg) is taken with one, and allowed.
func (o *opts) problems() []string {
	var out []string
	type option struct {
		name string
		long bool
	}
	seen := make(map[option]string, 64) // to the field that lists it
	add := func(name, field string) {
		key := option{name, len(name) > 1}
		prev := seen[key]
		switch {
		case strings.HasPrefix(name, "-"):
			out = append(out, fmt.Sprintf("%s: %q is written with its dash; the tables name options without them", field, name))
			return
		case prev == field:
			out = append(out, fmt.Sprintf("%s: %s is listed twice", field, shownOption(name)))
		case prev == "short" && field == "shortArg", prev == "long" && field == "longArg":
			// Harmless both ways (a table shared by several subcommands, or an optional
			// value): the parser takes the value, and either list makes it known.
		case prev != "":
			out = append(out, fmt.Sprintf("%s is listed in both %s and %s", shownOption(name), prev, field))
		}
		seen[key] = field
	}
	for _, f := range []struct{ field, letters string }{{"short", o.short}, {"shortArg", o.shortArg}} {
		for i := 0; i < len(f.letters); i++ {
			r := rune(f.letters[i])
			if r == '-' || r == ' ' || r == '\t' || r == '\n' || r == '=' {
				out = append(out, fmt.Sprintf("%s: %q is not an option letter", f.field, r))
				continue
			}
			add(f.letters[i:i+1], f.field)
		}
	}
	for _, f := range []struct{ field, names string }{{"long", o.long}, {"longArg", o.longArg}} {
		for n := range strings.FieldsSeq(f.names) {
			if len(n) == 1 {
				out = append(out, fmt.Sprintf("%s: %q is one letter, a short option: list it in short or shortArg", f.field, n))
				continue
			}
			add(n, f.field)
		}
	}
	for _, k := range o.kinds() {
		for n := range strings.FieldsSeq(k.names) {
			add(n, kindField()[k.kind])
		}
	}
	return out
}

// shownOption is an option of a table as written on a command line: -x, --name.
func shownOption(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// kindField names the field of opts each kind is listed in.
var kindField = sync.OnceValue(func() map[optionKind]string {
	return map[optionKind]string{kindWrites: "writes", kindReads: "reads", kindRuns: "runs", kindConfig: "config"}
})

// namedOptionTables are the option tables kept in package variables, by a name that
// finds them. TestOptionTablesAreWellFormed checks them, and every opts literal written
// inside a judge's function, read from the package's source. (They were also checked
// when the package started: 3% of `parley --version`'s CPU, for constants a test sees.)
func namedOptionTables() map[string]*opts {
	t := map[string]*opts{
		"makeOptions": &makeOptions, "gitReadOptions": &gitReadOptions, "gitArchiveOptions": &gitArchiveOptions,
		"gitConfigReadOptions": &gitConfigReadOptions, "nodeQueryOptions": &nodeQueryOptions, "pipOptions": &pipOptions,
		"uvQueryOptions": &uvQueryOptions, "cargoQueryOptions": &cargoQueryOptions, "publisherQueryOptions": &publisherQueryOptions,
		"envQueryOptions": &envQueryOptions, "sortOptions": &sortOptions, "fdOptions": &fdOptions,
		"systemctlQueryOptions": &systemctlQueryOptions, "dockerWriteOptions": &dockerWriteOptions,
		"dockerGlobalOptions": &dockerGlobalOptions, "dockerQueryOptions": &dockerQueryOptions, "kubeQueryOptions": &kubeQueryOptions,
		"osQueryOptions": &osQueryOptions, "sedOptions": &sedOptions, "awkOptions": &awkOptions, "tarListOptions": &tarListOptions,
		"lsOptions": &lsOptions.opts, "sumOptions": &sumOptions.opts, "grepOptions": &grepOptions.opts,
	}
	for name, p := range plainTable() {
		t["plainTable["+name+"]"] = &p.opts
	}
	for name, o := range projectWrites() {
		t["projectWrites["+name+"]"] = &o
	}
	for name, o := range createOptions() {
		t["createOptions["+name+"]"] = &o
	}
	return t
}
