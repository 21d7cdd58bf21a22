package eliza

import "sync"

// The DOCTOR script: the data the engine in doctor.go runs. It is written afresh in the
// spirit of Weizenbaum's 1966 script, in the same notation:
//
//   - A keyword has a rank; the highest-ranked keyword in the clause is tried first.
//   - A decomposition pattern is a list of elements: "*" matches any number of words
//     (including none), "@group" matches one word of a synonym group, anything else matches
//     that one word. Every element is numbered from 1, so "(n)" in a reassembly is the n-th
//     element's words, reflected ("my" becomes "your"). Counting literal words too is how the
//     original numbered its parts.
//   - A reassembly is a reply template, or "=keyword" (carry on with that keyword's
//     decompositions on the same words), or "newkey" (give up on this keyword and try the
//     next one in the clause).
//   - A decomposition marked memorize does not answer: it stores its reassembly for later
//     and lets the next decomposition answer.
//   - A keyword with a link has no decompositions of its own and uses its target's.
//
// compileDoctorScript checks all of this when the package loads.

var doctorGreetings = []string{
	"How do you do. Please tell me your problem.",
	"Hello. What seems to be troubling you?",
	"Please sit down. What would you like to talk about?",
	"Good day. Tell me what brings you here.",
}

// doctorPreSubstitutions rewrite input words before keywords are looked for. They only
// normalise spelling; a word that merely means the same as a keyword is a link instead, so
// the patient's own word survives into the reply.
var doctorPreSubstitutions = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"dont":      "don't",
		"cant":      "can't",
		"wont":      "won't",
		"im":        "i am",
		"i'm":       "i am",
		"youre":     "you are",
		"you're":    "you are",
		"recollect": "remember",
		"dreamt":    "dreamed",
		"machine":   "computer",
	}
})

// doctorPostSubstitutions reflect captured words from the patient's point of view to the
// therapist's. "you" is not here: it becomes "I" or "me" depending on its position (see
// doctorSubjectMarkers).
var doctorPostSubstitutions = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"i":        "you",
		"me":       "you",
		"my":       "your",
		"your":     "my",
		"mine":     "yours",
		"yours":    "mine",
		"myself":   "yourself",
		"yourself": "myself",
		"am":       "are",
		"i've":     "you've",
		"you've":   "I've",
		"i'll":     "you'll",
		"you'll":   "I'll",
		"i'd":      "you'd",
		"you'd":    "I'd",
	}
})

// doctorPostPairs reflect a pronoun and its verb together, because the verb's person
// follows the pronoun: "I am" is "you are", but a lone "are" ("they are") must stay.
var doctorPostPairs = sync.OnceValue(func() map[[2]string][2]string {
	return map[[2]string][2]string{
		{"i", "am"}:     {"you", "are"},
		{"am", "i"}:     {"are", "you"},
		{"you", "are"}:  {"I", "am"},
		{"are", "you"}:  {"am", "I"},
		{"i", "was"}:    {"you", "were"},
		{"was", "i"}:    {"were", "you"},
		{"you", "were"}: {"I", "was"},
		{"were", "you"}: {"was", "I"},
	}
})

// doctorSubjectMarkers are the words after which "you" starts a clause and so reflects to
// "I" rather than "me": "you hate me" → "I hate you", "he hates you" → "he hates me".
var doctorSubjectMarkers = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"that": true, "and": true, "or": true, "so": true, "because": true, "if": true,
		"when": true, "since": true, "until": true, "unless": true, "while": true,
	}
})

var doctorGroups = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"belief":   {"feel", "think", "believe", "wish"},
		"family":   {"mother", "mom", "mum", "mommy", "father", "dad", "daddy", "sister", "brother", "wife", "husband", "children", "child", "son", "daughter"},
		"desire":   {"want", "need"},
		"sad":      {"sad", "unhappy", "depressed", "sick", "miserable", "lonely"},
		"happy":    {"happy", "elated", "glad", "better", "delighted"},
		"cannot":   {"can't", "cannot"},
		"everyone": {"everyone", "everybody", "nobody", "noone"},
		"be":       {"am", "is", "are", "was", "were"},
	}
})

// doctorFallbackKeyword answers when no keyword does and no memory is due.
const doctorFallbackKeyword = "xnone"

func doctorRule(pattern string, reassemblies ...string) doctorDecompositionSpec {
	return doctorDecompositionSpec{pattern: pattern, reassemblies: reassemblies}
}

func doctorMemoryRule(pattern string, reassemblies ...string) doctorDecompositionSpec {
	return doctorDecompositionSpec{pattern: pattern, reassemblies: reassemblies, memorize: true}
}

var doctorKeywords = []doctorKeywordSpec{
	{word: "xnone", internal: true, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"I'm not sure I understand you fully.",
			"Please go on.",
			"What does that suggest to you?",
			"Do you feel strongly about discussing such things?"),
	}},

	// An apology outranks "i", so "I apologise" is heard as one.
	{word: "sorry", rank: 1, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Please don't apologise.",
			"Apologies are not necessary.",
			"What feelings do you have when you apologise?",
			"I have told you that apologies are not required."),
	}},
	{word: "apologise", rank: 1, link: "sorry"},
	{word: "apologize", rank: 1, link: "sorry"},

	{word: "remember", rank: 5, decompositions: []doctorDecompositionSpec{
		doctorRule("* i remember *",
			"Do you often think of (4)?",
			"Does thinking of (4) bring anything else to mind?",
			"What else do you remember?",
			"Why do you remember (4) just now?",
			"What in the present situation reminds you of (4)?",
			"What is the connection between me and (4)?"),
		doctorRule("* do you remember *",
			"Did you think I would forget (5)?",
			"Why do you think I should recall (5) now?",
			"What about (5)?",
			"=what",
			"You mentioned (5)?"),
		doctorRule("*", "newkey"),
	}},

	{word: "forget", rank: 5, decompositions: []doctorDecompositionSpec{
		doctorRule("* i forget *",
			"Why do you think you forget (4)?",
			"What would it mean to you to remember (4)?",
			"How often do you think of (4)?",
			"Could something be keeping (4) from you?"),
		doctorRule("*", "newkey"),
	}},

	{word: "if", rank: 3, decompositions: []doctorDecompositionSpec{
		doctorRule("* if *",
			"Do you think it's likely that (3)?",
			"Do you wish that (3)?",
			"What do you know about (3)?",
			"Really, if (3)?"),
	}},

	{word: "dreamed", rank: 4, decompositions: []doctorDecompositionSpec{
		doctorRule("* i dreamed *",
			"Really, (4)?",
			"Have you ever fantasized (4) while you were awake?",
			"Have you ever dreamed (4) before?",
			"=dream"),
		doctorRule("*", "=dream"),
	}},
	{word: "dream", rank: 3, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"What does that dream suggest to you?",
			"Do you dream often?",
			"What persons appear in your dreams?",
			"Do you believe that dreams have something to do with your problem?"),
	}},
	{word: "dreams", rank: 3, link: "dream"},

	{word: "perhaps", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"You don't seem quite certain.",
			"Why the uncertain tone?",
			"Can't you be more positive?",
			"You aren't sure?",
			"Don't you know?"),
	}},
	{word: "maybe", link: "perhaps"},

	{word: "name", rank: 15, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"I am not interested in names.",
			"I've told you before, I don't care about names. Please continue."),
	}},

	{word: "xforeign", internal: true, decompositions: []doctorDecompositionSpec{
		doctorRule("*", "I'm sorry, I speak only English."),
	}},
	{word: "deutsch", link: "xforeign"},
	{word: "francais", link: "xforeign"},
	{word: "italiano", link: "xforeign"},
	{word: "espanol", link: "xforeign"},

	{word: "hello", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"How do you do. Please state your problem.",
			"Hi. What seems to be your problem?"),
	}},
	{word: "hi", link: "hello"},

	{word: "computer", rank: 50, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Do computers worry you?",
			"Why do you mention computers?",
			"What do you think machines have to do with your problem?",
			"Don't you think computers can help people?",
			"What about machines worries you?",
			"What do you think about machines?"),
	}},
	{word: "computers", rank: 50, link: "computer"},
	{word: "machines", rank: 50, link: "computer"},

	{word: "am", decompositions: []doctorDecompositionSpec{
		doctorRule("* am i *",
			"Do you believe you are (4)?",
			"Would you want to be (4)?",
			"Do you wish I would tell you you are (4)?",
			"What would it mean if you were (4)?",
			"=what"),
		doctorRule("* i am *", "=i"),
		doctorRule("*",
			"Why do you say 'am'?",
			"I don't understand that."),
	}},

	{word: "are", decompositions: []doctorDecompositionSpec{
		doctorRule("* are you *",
			"Why are you interested in whether I am (4) or not?",
			"Would you prefer if I weren't (4)?",
			"Perhaps I am (4) in your fantasies.",
			"Do you sometimes think I am (4)?",
			"=what"),
		doctorRule("* are *",
			"Did you think they might not be (3)?",
			"Would you like it if they were not (3)?",
			"What if they were not (3)?",
			"Possibly they are (3)."),
	}},

	{word: "your", decompositions: []doctorDecompositionSpec{
		doctorRule("* your *",
			"Why are you concerned over my (3)?",
			"What about your own (3)?",
			"Are you worried about someone else's (3)?",
			"Really, my (3)?"),
	}},

	{word: "was", rank: 2, decompositions: []doctorDecompositionSpec{
		doctorRule("* was i *",
			"What if you were (4)?",
			"Do you think you were (4)?",
			"Were you (4)?",
			"What would it mean if you were (4)?",
			"=what"),
		doctorRule("* i was *",
			"Were you really?",
			"Why do you tell me you were (4) now?",
			"Perhaps I already know you were (4)."),
		doctorRule("* were you *",
			"Would you like to believe I was (4)?",
			"What suggests that I was (4)?",
			"What do you think?",
			"Perhaps I was (4).",
			"What if I had been (4)?"),
		doctorRule("* you were *",
			"What makes you think I was (4)?",
			"Does it please you to believe I was (4)?",
			"Why do you say I was (4)?"),
		doctorRule("*", "newkey"),
	}},
	{word: "were", rank: 2, link: "was"},

	{word: "i", decompositions: []doctorDecompositionSpec{
		doctorRule("* i @desire *",
			"What would it mean to you if you got (4)?",
			"Why do you want (4)?",
			"Suppose you got (4) soon.",
			"What if you never got (4)?",
			"What would getting (4) mean to you?",
			"What does wanting (4) have to do with this discussion?"),
		doctorRule("* i am * @sad *",
			"I am sorry to hear that you are (5).",
			"Do you think coming here will help you not to be (5)?",
			"I'm sure it's not pleasant to be (5).",
			"Can you explain what made you (5)?"),
		doctorRule("* i am * @happy *",
			"How have I helped you to be (5)?",
			"Has your treatment made you (5)?",
			"What makes you (5) just now?",
			"Can you explain why you are suddenly (5)?"),
		doctorRule("* i was *", "=was"),
		doctorRule("* i @belief i *",
			"Do you really think so?",
			"But you are not sure you (5).",
			"Do you really doubt you (5)?"),
		doctorRule("* i @belief * you *", "=you"),
		doctorRule("* i * @everyone *",
			"Really, (4)?",
			"Surely not (4).",
			"Can you think of anyone in particular?",
			"Who, for example?",
			"You are thinking of a very special person, aren't you?"),
		doctorRule("* i am *",
			"Is it because you are (4) that you came to me?",
			"How long have you been (4)?",
			"Do you believe it is normal to be (4)?",
			"Do you enjoy being (4)?"),
		doctorRule("* i @cannot *",
			"How do you know that you can't (4)?",
			"Have you tried?",
			"Perhaps you could (4) now.",
			"Do you really want to be able to (4)?"),
		doctorRule("* i don't *",
			"Don't you really (4)?",
			"Why don't you (4)?",
			"Do you wish to be able to (4)?",
			"Does that trouble you?"),
		doctorRule("* i feel *",
			"Tell me more about such feelings.",
			"Do you often feel (4)?",
			"Do you enjoy feeling (4)?",
			"Of what does feeling (4) remind you?"),
		doctorRule("* i * you *",
			"Perhaps in your fantasies we (3) each other.",
			"Do you wish to (3) me?",
			"You seem to need to (3) me.",
			"Do you (3) anyone else?"),
		doctorRule("*",
			"You say (1)?",
			"Can you elaborate on that?",
			"Do you say (1) for some special reason?",
			"That's quite interesting."),
	}},

	{word: "you", decompositions: []doctorDecompositionSpec{
		doctorRule("* you remind me of *", "=alike"),
		doctorRule("* you are *",
			"What makes you think I am (4)?",
			"Does it please you to believe I am (4)?",
			"Do you sometimes wish you were (4)?",
			"Perhaps you would like to be (4)."),
		doctorRule("* you * me *",
			"Why do you think I (3) you?",
			"You like to think I (3) you, don't you?",
			"What makes you think I (3) you?",
			"Really, I (3) you?",
			"Do you wish to believe I (3) you?",
			"Suppose I did (3) you. What would that mean?",
			"Does someone else believe I (3) you?"),
		doctorRule("* you *",
			"We were discussing you, not me.",
			"Oh, I (3)?",
			"You're not really talking about me, are you?",
			"What are your feelings now?"),
	}},

	{word: "yes", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"You seem quite positive.",
			"You are sure.",
			"I see.",
			"I understand."),
	}},
	{word: "certainly", link: "yes"},

	{word: "no", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Are you saying 'no' just to be negative?",
			"You are being a bit negative.",
			"Why not?",
			"Why 'no'?"),
	}},

	// "my" is the memory keyword: whatever the patient says of theirs is kept for a quiet
	// moment later. A sentence about themselves that mentions something of theirs ("I am
	// worried about my tests") is still about them, so it goes on to "i" once remembered.
	{word: "my", rank: 2, decompositions: []doctorDecompositionSpec{
		doctorMemoryRule("* my *",
			"Let's discuss further why your (3).",
			"But your (3)?",
			"Earlier you said your (3).",
			"Does that have anything to do with the fact that your (3)?"),
		doctorRule("* my * @family *",
			"Tell me more about your family.",
			"Who else in your family (5)?",
			"Your (4)?",
			"What else comes to mind when you think of your (4)?"),
		doctorRule("* i * my *", "=i"),
		doctorRule("* my *",
			"Your (3)?",
			"Why do you say your (3)?",
			"Does that suggest anything else which belongs to you?",
			"Is it important to you that your (3)?"),
	}},

	{word: "can", decompositions: []doctorDecompositionSpec{
		doctorRule("* can you *",
			"You believe I can (4), don't you?",
			"=what",
			"You want me to be able to (4).",
			"Perhaps you would like to be able to (4) yourself."),
		doctorRule("* can i *",
			"Whether or not you can (4) depends on you more than on me.",
			"Do you want to be able to (4)?",
			"Perhaps you don't want to (4).",
			"=what"),
		doctorRule("*", "newkey"),
	}},

	{word: "what", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Why do you ask?",
			"Does that question interest you?",
			"What is it you really want to know?",
			"Are such questions much on your mind?",
			"What answer would please you most?",
			"What do you think?",
			"What comes to mind when you ask that?",
			"Have you asked such questions before?",
			"Have you asked anyone else?"),
	}},

	{word: "because", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Is that the real reason?",
			"Don't any other reasons come to mind?",
			"Does that reason seem to explain anything else?",
			"What other reasons might there be?"),
	}},

	{word: "why", decompositions: []doctorDecompositionSpec{
		doctorRule("* why don't you *",
			"Do you believe I don't (5)?",
			"Perhaps I will (5) in good time.",
			"Should you (5) yourself?",
			"You want me to (5)?",
			"=what"),
		doctorRule("* why can't i *",
			"Do you think you should be able to (5)?",
			"Do you want to be able to (5)?",
			"Do you believe this will help you to (5)?",
			"Have you any idea why you can't (5)?",
			"=what"),
		doctorRule("*", "=what"),
	}},

	{word: "everyone", rank: 2, decompositions: []doctorDecompositionSpec{
		doctorRule("* @everyone *",
			"Really, (2)?",
			"Surely not (2).",
			"Can you think of anyone in particular?",
			"Who, for example?",
			"Are you thinking of a very special person?",
			"Who, may I ask?",
			"Someone special perhaps?",
			"You have a particular person in mind, don't you?",
			"Who do you think you're talking about?"),
	}},
	{word: "everybody", rank: 2, link: "everyone"},
	{word: "nobody", rank: 2, link: "everyone"},
	{word: "noone", rank: 2, link: "everyone"},

	{word: "always", rank: 1, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"Can you think of a specific example?",
			"When?",
			"What incident are you thinking of?",
			"Really, always?"),
	}},

	{word: "alike", rank: 10, decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"In what way?",
			"What resemblance do you see?",
			"What does that similarity suggest to you?",
			"What other connections do you see?",
			"What do you suppose that resemblance means?",
			"What is the connection, do you suppose?",
			"Could there really be some connection?",
			"How?"),
	}},
	{word: "same", rank: 10, link: "alike"},
	{word: "identical", rank: 10, link: "alike"},
	{word: "equivalent", rank: 10, link: "alike"},

	// "like" is a comparison only after a form of "be" ("you are like my father");
	// otherwise ("I like cats") it steps aside for the next keyword.
	{word: "like", rank: 10, decompositions: []doctorDecompositionSpec{
		doctorRule("* @be * like *", "=alike"),
		doctorRule("*", "newkey"),
	}},

	{word: "different", decompositions: []doctorDecompositionSpec{
		doctorRule("*",
			"How is it different?",
			"What differences do you see?",
			"What does that difference suggest to you?",
			"What other distinctions do you see?",
			"What do you suppose that disparity means?",
			"Could there be some connection, do you suppose?",
			"How?"),
	}},
}
