package lazy

import "testing"

func TestRegexpCompilesOnceOnFirstUse(t *testing.T) {
	re := Regexp(`^a+$`)
	if !re().MatchString("aaa") || re() != re() {
		t.Errorf("not one compiled expression")
	}
	bad := Regexp(`(`) // no panic yet: nothing is compiled before the first call
	defer func() {
		if recover() == nil {
			t.Errorf("a bad expression did not panic at its first use")
		}
	}()
	bad()
}
