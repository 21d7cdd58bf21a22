package safety

import (
	"strings"
	"testing"
)

// arithmeticCarriers are lines in which Bash evaluates text as arithmetic that holds
// {cmd} in a $(…) or backquotes, hidden from the line's own shell by quotes or escapes
// (issue 26): each place Bash evaluates arithmetic, each kind of quoting. {escaped} is
// {cmd} with its spaces escaped.
var arithmeticCarriers = []string{
	// let, as the issue saw it and in every quoting.
	`let "a[\$({cmd})]=1"`,
	`let 'a[$({cmd})]=1'`,
	`let a[\$\({escaped}\)]=1`,
	"let 'a[`{cmd}`]=1'",
	"let \"a[\\`{cmd}\\`]=1\"",
	`builtin let 'a[$({cmd})]=1'`,
	`command let "a[\$({cmd})]=1"`,
	// (( )), $(( )), $[ ] and for ((;;)).
	`(( 'a[$({cmd})]' ))`,
	`(( a['$({cmd})'] ))`,
	`(( a["\$({cmd})"] ))`,
	`(( x = 'a[$({cmd})]' ))`,
	`echo $(( a['$({cmd})'] ))`,
	`echo "$(( 'a[$({cmd})]' ))"`,
	`echo $(( "a[\$({cmd})]" + 1 ))`,
	`echo $[ a['$({cmd})'] ]`,
	`for (( i='a[$({cmd})]'; i<1; i++ )); do :; done`,
	`for (( i=0; i<a['$({cmd})']; i++ )); do :; done`,
	// Subscripts in assignments and declarations.
	`a['$({cmd})']=1`,
	`a["\$({cmd})"]=1`,
	`a+=(['$({cmd})']=1)`,
	`a=([ '$({cmd})' ]=1)`,
	`declare a['$({cmd})']=1`,
	`declare -a a=(['$({cmd})']=1)`,
	`declare 'a[$({cmd})]=1'`,
	`local 'a[$({cmd})]=1'`,
	`export 'a[$({cmd})]=1'`,
	`readonly 'a[$({cmd})]=1'`,
	`typeset 'a[$({cmd})]=1'`,
	`builtin declare 'a[$({cmd})]=1'`,
	// Integer variables and namerefs.
	`declare -i x='a[$({cmd})]'`,
	`declare -i x; x='a[$({cmd})]'`,
	`declare -i x; x+='a[$({cmd})]'`,
	`local -i x="a[\$({cmd})]"`,
	`declare -ia x=( 'a[$({cmd})]' )`,
	`declare -i x; x=( 'a[$({cmd})]' )`,
	`declare -ai x; x[0]='a[$({cmd})]'`,
	`declare -i x; export x='a[$({cmd})]'`,
	`declare -i x; for x in 'a[$({cmd})]'; do :; done`,
	`declare -i x; printf -v x '%s' 'a[$({cmd})]'`,
	`builtin declare -i 'x=a[$({cmd})]'`,
	`declare -n r='a[$({cmd})]'; r=1`,
	`declare -n r; r='a[$({cmd})]'; echo "$r"`,
	// Names that builtins take.
	`[[ -v 'a[$({cmd})]' ]]`,
	`test -v 'a[$({cmd})]'`,
	`[ -v 'a[$({cmd})]' ]`,
	`printf -v 'a[$({cmd})]' x`,
	`read 'a[$({cmd})]' < a.txt`,
	`read -a 'a[$({cmd})]' < a.txt`,
	`mapfile 'a[$({cmd})]' < a.txt`,
	`readarray -t 'a[$({cmd})]' < a.txt`,
	`unset 'a[$({cmd})]'`,
	`getopts ab 'a[$({cmd})]'`,
	`wait -n -p 'a[$({cmd})]'`,
	// Expansions.
	`echo "${a['$({cmd})']}"`,
	`echo "${#a['$({cmd})']}"`,
	`echo "${!a['$({cmd})']}"`,
	`echo "${x:'a[$({cmd})]':1}"`,
	`echo "${@:'a[$({cmd})]'}"`,
	`a=(1 2); echo "${a[@]:'a[$({cmd})]'}"`,
	`x='a[$({cmd})]'; echo "${!x}"`,
	// [[ ]] arithmetic comparisons.
	`[[ 'a[$({cmd})]' -eq 1 ]]`,
	`[[ 1 -lt "a[\$({cmd})]" ]]`,
	// Values arithmetic reads, set in the line.
	`x='a[$({cmd})]'; (( x ))`,
	`x='a[$({cmd})]'; echo $(( $x ))`,
	`i='a[$({cmd})]'; echo "${a[i]}"`,
	`a=b; b='c[$({cmd})]'; echo $(( a + 1 ))`,
	`f() { echo $(( $1 + 1 )); }; f 'a[$({cmd})]'`,
	`read x <<< 'a[$({cmd})]'; echo $(( x ))`,
	`echo 'a[$({cmd})]' | { read -r x; (( x )); }`,
	`declare -i x; read x <<< 'a[$({cmd})]'`,
	`declare -i x; mapfile x <<< 'a[$({cmd})]'`,
	// Code that carries it.
	`bash -c 'let "a[\$({cmd})]=1"'`,
	`sh -c "let 'a[\$({cmd})]=1'"`,
	`eval 'let "a[\$({cmd})]=1"'`,
	`bash -c 'bash -c "let \"a[\\\$({cmd})]=1\""'`,
	// A declaration's value in parentheses is parsed again as a compound assignment.
	`declare -a 'a=($({cmd}))'`,
	`declare -a a='($({cmd}))'`,
	`declare -A 'a=([k]=$({cmd}))'`,
	`builtin declare -a 'a=($({cmd}))'`,
}

// Text Bash evaluates as arithmetic with a command in it is code: the command is judged
// as what it is, and it is never less than High.
func TestArithmeticRunsTheCommandsInIt(t *testing.T) {
	for _, line := range arithmeticCarriers {
		for cmd, want := range map[string]Tier{"rm -rf src": High, "rm -rf ~": Critical} {
			l := strings.NewReplacer("{cmd}", cmd, "{escaped}", strings.ReplaceAll(cmd, " ", `\ `)).Replace(line)
			a := Analyze(l, tableContext)
			if a.Tier != want {
				t.Errorf("%s is %s (%s), want %s", l, a.Tier, a.Reason(), want)
			}
			if !runs(a, "rm") {
				t.Errorf("%s: rm is not among the commands it runs: %v", l, a.Runs())
			}
			for _, shell := range []string{"sh", "bash"} {
				if in := AnalyzeArgv([]string{shell, "-c", l}, tableContext); in.Tier < want {
					t.Errorf("%s -c %q is %s (%s), want %s", shell, l, in.Tier, in.Reason(), want)
				}
			}
		}
	}
}

func runs(a *Analysis, name string) bool {
	for _, c := range a.Commands {
		if c.Name() == name {
			return true
		}
	}
	return false
}

// A $ or a backquote that reaches arithmetic is code even when no command is seen in
// it: High.
func TestArithmeticDollarIsCode(t *testing.T) {
	for _, line := range []string{
		`let 'a[$x]=1'`,
		`let 'x=$y'`,
		`(( a['$i'] ))`,
		`(( a["\$i"] ))`,
		`(( a["\$(id)$x"] ))`,
		`unset 'arr[$i]'`,
		`printf -v 'a[$i]' x`,
		`declare -i n='$m'`,
		`[[ '$x' -eq 1 ]]`,
		`(( $ ))`,
		`let '$'`,
		`x='$y'; (( x ))`,
		"let 'x=`date`'",
	} {
		if a := Analyze(line, tableContext); a.Tier != High {
			t.Errorf("%s is %s (%s), want high", line, a.Tier, a.Reason())
		}
	}
}

// Arithmetic text only known when it runs is judged as the values arithmetic reads are
// (CLASSES.md: `x=$(cat data.txt); echo $((x))`): Medium, so it asks at the default
// settings; what it could hide is not seen.
func TestArithmeticOfUnknownText(t *testing.T) {
	for _, line := range []string{
		`let "$x"`,
		`let "a[$x]=1"`,
		`(( a["$x"] ))`,
		`echo $(( $(cat data.txt) ))`,
		`echo $(( a[$(cat data.txt)] ))`,
		`[[ $(cat data.txt) -eq 1 ]]`,
		`declare -i n; n=$(cat data.txt)`,
		`declare -i n; read n < data.txt`,
		`declare -i n; printf -v n "$x"`,
		`printf -v "$x" 1`,
		`unset "a[$i]"`,
		`echo "${a[$i]}"`,
		`echo "${s:$off:2}"`,
		`f() { echo $(( $1 + 1 )); }; f "$x"`,
		`read x < data.txt; echo $(( x ))`,
		`read x y <<< "$v"; echo $(( x ))`,
	} {
		if a := Analyze(line, tableContext); a.Tier != Medium {
			t.Errorf("%s is %s (%s), want medium", line, a.Tier, a.Reason())
		}
	}
}

// Ordinary arithmetic keeps its tier: numbers and variables the line set are harmless,
// a variable it did not set (whose value could hide a[$(…)]) asks as before, and what
// only looks like arithmetic is not taken for it.
func TestArithmeticOrdinary(t *testing.T) {
	for line, want := range map[string]Tier{
		`let i=i+1`:                              Medium,
		`(( i++ ))`:                              Medium,
		`(( a[i] += 2 ))`:                        Medium,
		`echo "${a[i]}"`:                         Medium,
		`[[ $n -eq 1 ]]`:                         Medium,
		`declare -i n=5`:                         Medium,
		`i=0; (( i++ ))`:                         None,
		`echo $((1+2))`:                          None,
		`echo $[ 1 + 2 ]`:                        None,
		`let 'x = 1 + 2'`:                        None,
		`(( a[1] = 2 ))`:                         None,
		`unset 'a[1]'`:                           None,
		`unset x`:                                None,
		`[[ 3 -eq 3 ]]`:                          None,
		`[ "$n" -eq 1 ]`:                         None,
		`test "$n" -gt 2`:                        None,
		`a=([0]=x [1]=y)`:                        None,
		`a=b; b=a; (( a ))`:                      None, // Bash stops: the values only name each other
		`for ((i=0;i<10;i++)); do echo $i; done`: None,
		`x=5; echo $(( x * 2 )) $(( $x * 2 ))`:   None,
		`(( x = 0x1F + 2#101 + 64#_@ ))`:         None,
		`a=(1 2 3); echo "${a[1]}" "${#a[@]}" "${a[@]:1:2}"`: None,
		`s=hello; echo "${s:1:2}"`:                           None,
		`printf -v out '%s' hi`:                              None,
		`read -r line < a.txt`:                               None,
		`wait -n -p pid; echo "$pid"`:                        None,
		`mapfile -t lines < a.txt`:                           None,
		`f() { echo $(( $1 + 1 )); }; f 2`:                   None,
		`read -r n <<< 5; echo $(( n + 1 ))`:                 None,
		// Not arithmetic: test's -eq takes integers, an associative array's keys are
		// strings.
		`[ 'a[$(rm -rf ~)]' -eq 1 ]`:                  None,
		`test 'a[$(rm -rf ~)]' -eq 1`:                 None,
		`declare -A b; b['$(rm -rf ~)']=1`:            None,
		`declare -A b=( ['$(rm -rf ~)']=1 )`:          None,
		`printf '%s\n' 'a[$(rm -rf ~)]'`:              None,
		`x='a[$(rm -rf ~)]'; echo "$x"`:               None,
		`declare 'x=$(rm -rf ~)'`:                     None, // only a value in parentheses is parsed again
		`declare -a 'a=(1 2 3)'; declare -a a=("$x")`: None,
		`declare -i n; printf -v n '%d' 5; echo "$n"`: Medium, // declare -i
	} {
		if a := Analyze(line, tableContext); a.Tier != want {
			t.Errorf("%s is %s (%s), want %s", line, a.Tier, a.Reason(), want)
		}
	}
}

// Values that read each other many times are judged within the line's budget, not in
// exponential time.
// A declaration's value in parentheses only known when it runs is code parley cannot
// see (x='$(id)'; declare -a "a=($x)" runs id): Critical, as eval "$x" is.
func TestDeclaredArrayOfUnknownText(t *testing.T) {
	for _, line := range []string{
		`declare -a "a=($x)"`,
		`declare -a a="($x)"`,
		`local -a "a=($(cat data.txt))"`,
		`builtin declare -a "a=($x)"`,
	} {
		if a := Analyze(line, tableContext); a.Tier != Critical {
			t.Errorf("%s is %s (%s), want critical", line, a.Tier, a.Reason())
		}
	}
}

func TestArithmeticValuesThatMultiply(t *testing.T) {
	var b strings.Builder
	names := "abcdefgh"
	for i := 0; i+1 < len(names); i++ {
		b.WriteString(names[i:i+1] + "='" + strings.Repeat(names[i+1:i+2]+"+", 40) + "1'; ")
	}
	b.WriteString("echo $((a))")
	if a := Analyze(b.String(), tableContext); a.Tier != Critical {
		t.Errorf("values read 40^7 times: %s (%s), want critical (too complex to judge)", a.Tier, a.Reason())
	}
}
