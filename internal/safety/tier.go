package safety

import "fmt"

// Tier is how risky a command is. Tiers are ordered: a higher one is more dangerous.
type Tier uint8

const (
	None     Tier = iota // reads, the project's own builds and tests
	Medium               // changes that stay in the workspace or are routine
	High                 // dangerous but bounded; asks unless the user chose otherwise
	Critical             // always asks, whatever was configured or remembered
)

func (t Tier) String() string {
	switch t {
	case None:
		return "none"
	case Medium:
		return "medium"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return fmt.Sprintf("Tier(%d)", uint8(t))
}

// ParseTier is the inverse of Tier.String.
func ParseTier(s string) (Tier, error) {
	for t := None; t <= Critical; t++ {
		if t.String() == s {
			return t, nil
		}
	}
	return None, fmt.Errorf("%q is not a tier (none, medium, high or critical)", s)
}
