package json

import "testing"

// point has its own UnmarshalJSON, as every protocol type does, so Unmarshal and
// UnmarshalValid both call it directly.
type point struct {
	X     int `json:"x"`
	Extra Extra
}

func (p *point) UnmarshalJSON(b []byte) error {
	type plain point
	extra, err := UnmarshalObject(b, (*plain)(p))
	p.Extra = extra
	return err
}

func TestUnmarshalValidDecodesAsUnmarshal(t *testing.T) {
	data := []byte(" {\"x\":3,\"y\":[1,{\"z\":null}]}\n")
	var a, b point
	if err := Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if err := UnmarshalValid(data, &b); err != nil {
		t.Fatal(err)
	}
	if a.X != 3 || b.X != 3 || string(a.Extra["y"]) != string(b.Extra["y"]) || string(b.Extra["y"]) != `[1,{"z":null}]` {
		t.Fatalf("Unmarshal gave %+v, UnmarshalValid %+v", a, b)
	}
}
