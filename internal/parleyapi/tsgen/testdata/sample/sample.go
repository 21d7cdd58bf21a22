package sample

// Base is embedded.
type Base struct {
	ID string `json:"id"`
}

// Thing shows each rule.
type Thing struct {
	Base
	Count   int               `json:"count"`         // how many
	Maybe   *int              `json:"maybe"`         // null when unknown
	Opt     *string           `json:"opt,omitempty"` // absent when unknown
	Tags    []string          `json:"tags"`          // never null
	Vars    map[string]string `json:"vars,omitzero"` // by name
	Raw     []byte            `json:"raw,omitempty"` // anything
	Hidden  string            `json:"-"`             // not sent
	private int
}

// The sample's methods.
const (
	MethodGet  = "_x/get"  // request
	MethodTold = "_x/told" // notification
)
