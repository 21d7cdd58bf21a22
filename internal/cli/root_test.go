package cli

import (
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

func TestSubcommandNames(t *testing.T) {
	g := &globals{}
	for _, sub := range subcommands {
		if got := sub.build(g).Name(); got != sub.name {
			t.Errorf("the subcommand listed as %q is named %q", sub.name, got)
		}
	}
}

func TestSubcommandsFor(t *testing.T) {
	names := func(subs []subcommand) []string {
		var out []string
		for _, s := range subs {
			out = append(out, s.name)
		}
		return out
	}
	flags := pflag.NewFlagSet("parley", pflag.ContinueOnError)
	registerGlobalFlags(flags, &globals{})
	all := names(subcommands)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, all}, // the root's help
		{[]string{"--version"}, nil},
		{[]string{"-v"}, nil},
		{[]string{"--log", "debug", "--version"}, nil},
		{[]string{"--version", "--help"}, all},
		{[]string{"chat"}, []string{"chat"}},
		{[]string{"--log", "debug", "run", "hello"}, []string{"run"}},
		{[]string{"--log=debug", "web", "--port", "0"}, []string{"web"}},
		{[]string{"--trace-dir", "chat", "vscodelm"}, []string{"vscodelm"}}, // chat is the directory
		{[]string{"sandbox-exec", "--", "run"}, []string{"sandbox-exec"}},
		{[]string{"help", "chat"}, all},
		{[]string{"completion", "bash"}, all},
		{[]string{"chta"}, all}, // answered with the nearest names
		{[]string{"--", "chat"}, all},
		{[]string{"--help"}, all},
	} {
		if got := names(subcommandsFor(flags, c.args)); !slices.Equal(got, c.want) {
			t.Errorf("subcommandsFor(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
