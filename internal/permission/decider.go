package permission

// Decider says who or what decided a permission request, so that a script reading
// parley run --json can tell a refusal from an agent's failure, and a person's answer
// from one parley gave on a standing decision. The values are a stable interface (the
// "decidedBy" member of the permission JSON event).
type Decider string

const (
	DecidedByUser   Decider = "user"   // a person was asked and answered
	DecidedByRule   Decider = "rule"   // a rule in the configuration (allow or reject)
	DecidedByAlways Decider = "always" // an "always" answer given earlier
	DecidedByYolo   Decider = "yolo"   // --yolo allowed it
	// DecidedByConfined: "allow while confined" was answered earlier in the session.
	DecidedByConfined Decider = "while_confined"
	// DecidedByNobody: the request needed a question and nobody could be asked (no
	// terminal): refused.
	DecidedByNobody Decider = "no_one_to_ask"
	// DecidedByParley: parley refused a request it could not decide safely (options
	// sharing an id, an answer the options cannot express, asking failed).
	DecidedByParley Decider = "parley"
	// DecidedByClient: the front-end decided before the policy (the VS Code bridge
	// for its own tools).
	DecidedByClient Decider = "client"
	// DecidedByCancel: the turn was cancelled while the request was open.
	DecidedByCancel Decider = "cancelled"
)

// ByPerson reports whether a person made the decision then and there.
func (d Decider) ByPerson() bool { return d == DecidedByUser }
