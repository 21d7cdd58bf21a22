package eliza

import (
	"math/rand/v2"
	"slices"
	"sync"
)

// compiledDoctorScript is the DOCTOR script in the form Respond runs, compiled on first
// use. It is read-only after, so every Therapist shares it; everything a conversation
// changes lives in the Therapist.
var compiledDoctorScript = sync.OnceValue(mustCompileDoctorScript)

// doctorMemoryLimit bounds the memory queue; past it the oldest memory is forgotten, as a
// patient who talks only of their own things would otherwise grow it without end.
const doctorMemoryLimit = 16

// Therapist is one conversation's DOCTOR state: rule cycles and memory. Not safe for concurrent use.
type Therapist struct {
	// nextReassembly holds, per decomposition (by id), the index of the reassembly it gives
	// next time it fires, so repeating a sentence gets a different answer.
	nextReassembly []int
	nextGreeting   int
	memories       []string
	// recallMemoryNext alternates turns without a keyword between recalling a memory and
	// the fallback replies, so a quiet patient is not only fed their own past.
	recallMemoryNext bool
}

type TherapistOptions struct {
	// Deterministic makes every new Therapist answer the same inputs identically: all cycles start at zero.
	// Otherwise each Therapist starts its cycles at pseudo-random offsets (math/rand/v2 seeded per Therapist).
	Deterministic bool
}

func NewTherapist(opts TherapistOptions) *Therapist {
	t := &Therapist{
		nextReassembly:   make([]int, len(compiledDoctorScript().decompositions)),
		recallMemoryNext: true,
	}
	if !opts.Deterministic {
		r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
		for _, d := range compiledDoctorScript().decompositions {
			t.nextReassembly[d.id] = r.IntN(len(d.reassemblies))
		}
		t.nextGreeting = r.IntN(len(compiledDoctorScript().greetings))
	}
	return t
}

// Greeting opens the session. Successive calls cycle through the greetings.
func (t *Therapist) Greeting() string {
	g := compiledDoctorScript().greetings[t.nextGreeting]
	t.nextGreeting = (t.nextGreeting + 1) % len(compiledDoctorScript().greetings)
	return g
}

// Respond answers one thing the patient said. It always returns a non-empty reply.
//
// Like the original, it answers only the first clause that contains a keyword (clauses end
// at punctuation and at "but"); its keywords are tried highest rank first, and for ties in
// the order they were said. When no keyword yields a reply, every other such turn recalls
// the oldest memory, if there is one; the rest get a fallback reply.
func (t *Therapist) Respond(input string) string {
	words, keywords := compiledDoctorScript().firstClauseWithKeywords(input)
	for _, k := range keywords {
		if reply, ok := t.replyFor(k, words); ok {
			return reply
		}
	}
	if t.recallMemoryNext && len(t.memories) > 0 {
		memory := t.memories[0]
		t.memories = slices.Delete(t.memories, 0, 1)
		t.recallMemoryNext = false
		return memory
	}
	t.recallMemoryNext = true
	reply, _ := t.replyFor(compiledDoctorScript().fallback, nil)
	return reply
}

// replyFor tries keyword k's decompositions on words in order. It reports false when no
// decomposition matches or the one that does says "newkey". Gotos cannot loop: the script
// is checked for goto cycles when it is compiled.
func (t *Therapist) replyFor(k *doctorKeyword, words []string) (string, bool) {
	for _, d := range k.decompositions {
		parts, ok := d.match(words)
		if !ok {
			continue
		}
		r := d.reassemblies[t.nextReassembly[d.id]]
		t.nextReassembly[d.id] = (t.nextReassembly[d.id] + 1) % len(d.reassemblies)
		switch {
		case d.memorize:
			t.remember(r.assemble(parts))
		case r.newKey:
			return "", false
		case r.gotoKeyword != nil:
			return t.replyFor(r.gotoKeyword, words)
		default:
			return r.assemble(parts), true
		}
	}
	return "", false
}

func (t *Therapist) remember(memory string) {
	if len(t.memories) == doctorMemoryLimit {
		t.memories = slices.Delete(t.memories, 0, 1)
	}
	t.memories = append(t.memories, memory)
}
