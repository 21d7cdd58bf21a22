package eliza

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The -update flag rewrites golden files. Other golden tests in this package may define it
// too, so it is defined only if nobody has yet (package variables initialise before init).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata/")
	}
}

func updatingDoctorGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// TestDoctorSession replays testdata/doctor_session.txt, a conversation in deterministic
// mode: "> " lines are the patient, the line after each is the therapist's reply. Lines
// starting with "#" and blank lines are commentary and are kept by -update.
func TestDoctorSession(t *testing.T) {
	path := filepath.Join("testdata", "doctor_session.txt")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden session: %v", err)
	}
	got := replayDoctorSession(string(want))
	if updatingDoctorGolden() {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatalf("updating the golden session: %v", err)
		}
		return
	}
	if got != string(want) {
		gotLines, wantLines := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gotLines), len(wantLines)) {
			g, w := doctorLineOrMissing(gotLines, i), doctorLineOrMissing(wantLines, i)
			if g != w {
				t.Errorf("%s:%d:\n got: %s\nwant: %s", path, i+1, g, w)
			}
		}
		t.Log("if the new replies are right, run: go test ./internal/eliza -run DoctorSession -update")
	}
}

func doctorLineOrMissing(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(missing)"
}

// replayDoctorSession returns session with every reply replaced by what a fresh
// deterministic Therapist says now. A reply line may be absent, to let -update add it.
func replayDoctorSession(session string) string {
	therapist := NewTherapist(TherapistOptions{Deterministic: true})
	lines := strings.Split(strings.TrimSuffix(session, "\n"), "\n")
	var out strings.Builder
	for i := 0; i < len(lines); i++ {
		input, isInput := strings.CutPrefix(lines[i], ">")
		if !isInput {
			out.WriteString(lines[i] + "\n")
			continue
		}
		input = strings.TrimPrefix(input, " ")
		// An empty input is a bare ">", so no trailing space can be lost by an editor.
		fmt.Fprintf(&out, "%s\n%s\n", strings.TrimSpace("> "+input), therapist.Respond(input))
		if next := i + 1; next < len(lines) && isDoctorReplyLine(lines[next]) {
			i++
		}
	}
	return out.String()
}

func isDoctorReplyLine(line string) bool {
	return line != "" && !strings.HasPrefix(line, ">") && !strings.HasPrefix(line, "#")
}

func TestDoctorScriptCompiles(t *testing.T) {
	s, err := compileDoctorScript(doctorKeywords, doctorGroups(), doctorPreSubstitutions(), doctorGreetings)
	if err != nil {
		t.Fatalf("the DOCTOR script does not compile:\n%v", err)
	}
	replies := 0
	for _, d := range s.decompositions {
		replies += len(d.reassemblies)
	}
	// The 1966 script's breadth, roughly: if these drop, something was lost.
	if len(doctorKeywords) < 40 || replies < 100 {
		t.Errorf("script has %d keywords and %d reassemblies; want at least 40 and 100", len(doctorKeywords), replies)
	}
}

// TestDoctorScriptRejects makes sure a broken script is caught when the package loads,
// not by a patient.
func TestDoctorScriptRejects(t *testing.T) {
	fallback := doctorKeywordSpec{word: "xnone", internal: true, decompositions: []doctorDecompositionSpec{
		doctorRule("*", "Please go on."),
	}}
	groups := map[string][]string{"sad": {"sad"}}
	tests := []struct {
		name     string
		keywords []doctorKeywordSpec
		pre      map[string]string
		want     string
	}{
		{
			name:     "link to unknown keyword",
			keywords: []doctorKeywordSpec{fallback, {word: "dreams", link: "dream"}},
			want:     `link to unknown keyword "dream"`,
		},
		{
			name: "goto unknown keyword",
			keywords: []doctorKeywordSpec{fallback, {word: "why", decompositions: []doctorDecompositionSpec{
				doctorRule("*", "=what"),
			}}},
			want: `goto "what"`,
		},
		{
			name: "element number beyond the pattern",
			keywords: []doctorKeywordSpec{fallback, {word: "if", decompositions: []doctorDecompositionSpec{
				doctorRule("* if *", "Do you wish that (4)?"),
			}}},
			want: "(4) is not an element of a 3-element pattern",
		},
		{
			name: "unknown group",
			keywords: []doctorKeywordSpec{fallback, {word: "i", decompositions: []doctorDecompositionSpec{
				doctorRule("* i @glad *", "Why (3)?"),
			}}},
			want: "unknown group @glad",
		},
		{
			name: "gotos in a loop",
			keywords: []doctorKeywordSpec{fallback,
				{word: "a", decompositions: []doctorDecompositionSpec{doctorRule("*", "=b")}},
				{word: "b", decompositions: []doctorDecompositionSpec{doctorRule("* b *", "=a")}},
			},
			want: "gotos loop: a → b → a",
		},
		{
			name: "keyword rewritten by pre-substitution",
			keywords: []doctorKeywordSpec{fallback, {word: "machine", decompositions: []doctorDecompositionSpec{
				doctorRule("*", "Do machines worry you?"),
			}}},
			pre:  map[string]string{"machine": "computer"},
			want: "can never be seen",
		},
		{
			name:     "no fallback",
			keywords: []doctorKeywordSpec{{word: "hello", decompositions: []doctorDecompositionSpec{doctorRule("*", "Hi.")}}},
			want:     `no fallback keyword "xnone"`,
		},
		{
			name: "memory that would remember nothing",
			keywords: []doctorKeywordSpec{fallback, {word: "my", decompositions: []doctorDecompositionSpec{
				doctorMemoryRule("* my *", "newkey"),
			}}},
			want: "needs a reply to remember",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := compileDoctorScript(tt.keywords, groups, tt.pre, []string{"Hello."})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("compile error = %v; want one containing %q", err, tt.want)
			}
		})
	}
}

// doctorInputs exercise most of the script, repeating some sentences so cycles and
// memory come into play.
var doctorInputs = []string{
	"My mother hates me.", "Hmm.", "Hmm.", "I am sad.", "I am sad.", "You are a machine.",
	"I dreamt of cake.", "Why can't I sleep?", "Everybody laughs at me.", "", "Well.",
	"I want a new job, but my boss says no.", "Perhaps.", "You remind me of my father.",
}

func TestDoctorDeterministicTherapistsAgree(t *testing.T) {
	a := NewTherapist(TherapistOptions{Deterministic: true})
	b := NewTherapist(TherapistOptions{Deterministic: true})
	if ga, gb := a.Greeting(), b.Greeting(); ga != gb || ga != "How do you do. Please tell me your problem." {
		t.Errorf("greetings %q and %q; want both to be the classic one", ga, gb)
	}
	for _, in := range doctorInputs {
		if ra, rb := a.Respond(in), b.Respond(in); ra != rb {
			t.Errorf("Respond(%q): %q from one therapist, %q from the other", in, ra, rb)
		}
	}
}

func TestDoctorTherapistsAreIndependent(t *testing.T) {
	talkative := NewTherapist(TherapistOptions{Deterministic: true})
	fresh := NewTherapist(TherapistOptions{Deterministic: true})
	first := talkative.Respond("My car is broken.") // also remembers it
	if got := talkative.Respond("My car is broken."); got == first {
		t.Errorf("the same sentence twice got %q both times; want the next reassembly", got)
	}
	if got := fresh.Respond("My car is broken."); got != first {
		t.Errorf("a fresh therapist answered %q; want %q, unaffected by the other's cycles", got, first)
	}
	if got := talkative.Respond("Hmm."); !strings.Contains(got, "your car is broken") {
		t.Errorf("after a 'my' sentence and no keyword, got %q; want a memory of it", got)
	}
	fresh2 := NewTherapist(TherapistOptions{Deterministic: true})
	if got := fresh2.Respond("Hmm."); strings.Contains(got, "car") {
		t.Errorf("a fresh therapist recalled %q; it has no memories", got)
	}
}

func TestDoctorCyclesWrapAround(t *testing.T) {
	th := NewTherapist(TherapistOptions{Deterministic: true})
	var replies []string
	for range 5 {
		replies = append(replies, th.Respond("Sorry."))
	}
	if distinct := slices.Compact(slices.Sorted(slices.Values(replies[:4]))); len(distinct) != 4 {
		t.Errorf("four apologies got %q; want four different replies", replies[:4])
	}
	if replies[4] != replies[0] {
		t.Errorf("fifth apology got %q; want the cycle to wrap to %q", replies[4], replies[0])
	}
}

// TestDoctorRandomOffsetsStillCycle: a non-deterministic therapist starts somewhere else
// in each cycle but still goes round it in order.
func TestDoctorRandomOffsetsStillCycle(t *testing.T) {
	det := NewTherapist(TherapistOptions{Deterministic: true})
	var cycle []string
	for range 4 {
		cycle = append(cycle, det.Respond("Sorry."))
	}
	th := NewTherapist(TherapistOptions{})
	start := slices.Index(cycle, th.Respond("Sorry."))
	if start < 0 {
		t.Fatalf("a random therapist's apology reply is not in the cycle %q", cycle)
	}
	for i := 1; i < 8; i++ {
		if got, want := th.Respond("Sorry."), cycle[(start+i)%4]; got != want {
			t.Fatalf("apology %d got %q; want %q, next in the cycle", i+1, got, want)
		}
	}
	if g := th.Greeting(); !slices.Contains(doctorGreetings, g) {
		t.Errorf("greeting %q is not one of the script's", g)
	}
}

func TestDoctorMemoryAlternatesWithFallback(t *testing.T) {
	th := NewTherapist(TherapistOptions{Deterministic: true})
	th.Respond("My dog ran away.")
	th.Respond("My cat ran away too.")
	got := []string{th.Respond("Hmm."), th.Respond("Hmm."), th.Respond("Hmm."), th.Respond("Hmm.")}
	want := []string{
		"Let's discuss further why your dog ran away.",
		"I'm not sure I understand you fully.",
		"But your cat ran away too?",
		"Please go on.",
	}
	if !slices.Equal(got, want) {
		t.Errorf("quiet turns after two 'my' sentences:\n got %q\nwant %q", got, want)
	}
}

func TestDoctorFirstClauseWithKeywords(t *testing.T) {
	tests := []struct {
		input     string
		wantWords string
		wantFirst string
	}{
		{"It's true. I am unhappy.", "i am unhappy", "i"},
		{"You are not kind but I think you mean well", "you are not kind", "you"},
		{"Well, my boyfriend made me come here", "my boyfriend made me come here", "my"},
		{"I dreamt about a machine", "i dreamed about a computer", "computer"},
		{"I'm SAD!!!", "i am sad", "i"},
		{"“Don’t” you see?", "don't you see", "you"},
		{"Nothing here.", "", ""},
	}
	for _, tt := range tests {
		words, keywords := compiledDoctorScript().firstClauseWithKeywords(tt.input)
		first := ""
		if len(keywords) > 0 {
			first = keywords[0].word
		}
		if got := strings.Join(words, " "); got != tt.wantWords || first != tt.wantFirst {
			t.Errorf("firstClauseWithKeywords(%q) = %q led by %q; want %q led by %q", tt.input, got, first, tt.wantWords, tt.wantFirst)
		}
	}
}

func TestDoctorMatch(t *testing.T) {
	tests := []struct {
		pattern string
		input   string
		want    []string // each element's words, "|"-separated; nil for no match
	}{
		{"* i am * @sad *", "well i am very sad today", []string{"well", "i", "am", "very", "sad", "today"}},
		{"* i am * @sad *", "i am sad", []string{"", "i", "am", "", "sad", ""}},
		{"* i am * @sad *", "i am fine", nil},
		{"* you * me *", "you really do not like me", []string{"", "you", "really do not like", "me", ""}},
		{"* my * @family *", "my dog and my mother", []string{"", "my", "dog and my", "mother", ""}},
		{"*", "", []string{""}},
		{"* if *", "", nil},
	}
	groups := make(map[string]map[string]bool)
	for name, words := range doctorGroups() {
		groups[name] = make(map[string]bool)
		for _, w := range words {
			groups[name][w] = true
		}
	}
	for _, tt := range tests {
		d, err := compileDoctorDecomposition(doctorDecompositionSpec{pattern: tt.pattern, reassemblies: []string{"ok"}}, groups, nil)
		if err != nil {
			t.Fatalf("compiling %q: %v", tt.pattern, err)
		}
		parts, ok := d.match(strings.Fields(tt.input))
		var got []string
		if ok {
			for _, p := range parts {
				got = append(got, strings.Join(p, " "))
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q matching %q = %q; want %q", tt.pattern, tt.input, got, tt.want)
		}
	}
}

func TestDoctorReflect(t *testing.T) {
	tests := []struct{ in, want string }{
		{"i am worried about my tests", "you are worried about your tests"},
		{"you hate me", "I hate you"},
		{"he says you are mean to me", "he says I am mean to you"},
		{"he hates you", "he hates me"},
		{"i think that you lie to yourself", "you think that I lie to myself"},
		{"am i mad", "are you mad"},
		{"they are mine", "they are yours"},
	}
	for _, tt := range tests {
		if got := strings.Join(reflectDoctorWords(strings.Fields(tt.in)), " "); got != tt.want {
			t.Errorf("reflect(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzRespond(f *testing.F) {
	for _, in := range doctorInputs {
		f.Add(in)
	}
	for _, in := range []string{
		"", " ", "....,,,;;;!!!???", "but but but", "'''", "-- -", "my", "i", "you", "* @sad (1) =i newkey",
		"Ich möchte über 日本語 sprechen", "\xff\xfe invalid utf-8", strings.Repeat("my mother, ", 2000),
		strings.Repeat("i ", 5000) + "you", strings.Repeat("?", 10000),
	} {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, input string) {
		th := NewTherapist(TherapistOptions{Deterministic: true})
		for range 3 { // again, so cycles and memory move
			if reply := th.Respond(input); strings.TrimSpace(reply) == "" {
				t.Fatalf("Respond(%q) = %q; want a reply", input, reply)
			}
		}
	})
}

func BenchmarkRespond(b *testing.B) {
	th := NewTherapist(TherapistOptions{Deterministic: true})
	i := 0
	for b.Loop() {
		th.Respond(doctorInputs[i%len(doctorInputs)])
		i++
	}
}

func ExampleTherapist() {
	therapist := NewTherapist(TherapistOptions{Deterministic: true})
	fmt.Println(therapist.Greeting())
	fmt.Println(therapist.Respond("Men are all alike."))
	fmt.Println(therapist.Respond("Well, my boyfriend made me come here."))
	fmt.Println(therapist.Respond("He says I'm depressed much of the time."))
	// Output:
	// How do you do. Please tell me your problem.
	// In what way?
	// Your boyfriend made you come here?
	// I am sorry to hear that you are depressed.
}
