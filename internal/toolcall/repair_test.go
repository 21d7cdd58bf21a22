package toolcall

import "testing"

// TestRepairJSON covers the lenient reader on its own, with hand-written vectors.
func TestRepairJSON(t *testing.T) {
	tests := []struct {
		in, want  string
		truncated bool
	}{
		{`{"a": [1, 2.5, -3e2, true, null]}`, `{"a":[1,2.5,-3e2,true,null]}`, false},
		{`{"a": "b`, `{"a":"b"}`, true},
		{`{"a": "b\`, `{"a":"b"}`, true},
		{`{"a": "\u00`, `{"a":""}`, true},
		{`{"a": [{"b": 1}, {"c": `, `{"a":[{"b":1},{}]}`, true},
		{`{"a": 1.`, `{"a":1}`, true},
		{`{"a": fal`, `{"a":false}`, true},
		{`{"a"`, `{}`, true},
		{"{\"a\": \"x\ny\"}", `{"a":"x\ny"}`, false},
		{"{\"a\": \"tab\there\"}", `{"a":"tab\there"}`, false},
		{`{"a": "C:\Users\x"}`, `{"a":"C:\\Users\\x"}`, false},
		{`{"a": "\q\u12zz"}`, `{"a":"\\q\\u12zz"}`, false},
		{`{"a": "say \\"hi\\" now"}`, `{"a":"say \"hi\" now"}`, false},
		{`{\"a\": \"b\\nc\"}`, `{"a":"b\nc"}`, false},
		{`{"a": "<p class="x">", "b": 1}`, `{"a":"<p class=\"x\">","b":1}`, false},
		{`{"a": "x"` + "\n" + `"b": "y"}`, `{"a":"x","b":"y"}`, false},
		{`{"a": 1,\n"b": 2}`, `{"a":1,"b":2}`, false},
		{`{{"a": 1}}`, `{"a":1}`, false},
		{`{"a": 1, {"b": 2}}`, `{"a":1,"b":2}`, false},
		{"{\"a\": \"x`}", `{"a":"x"}`, false},
		{`{"a": "x"</parameter>}`, `{"a":"x"}`, false},
		{`{'a': 'it's', "b": True, "c": None}`, `{"a":"it's","b":true,"c":null}`, false},
		{`{"a": “curly”}`, `{"a":"curly"}`, false},
		{`{a: b c, d: [1,,2,],}`, `{"a":"b c","d":[1,2]}`, false},
		{`{"a": 1 // note` + "\n" + `/* x */ }`, `{"a":1}`, false},
		{`{"a": 007}`, `{"a":"007"}`, false},
		{"{\"a\": \"\xff\"}", `{"a":"\ufffd"}`, false},
	}
	for _, tt := range tests {
		got, truncated, ok := repairJSON([]byte(tt.in))
		if !ok || string(got) != tt.want || truncated != tt.truncated {
			t.Errorf("repairJSON(%#q) = %#q, truncated %v, ok %v; want %#q, truncated %v",
				tt.in, got, truncated, ok, tt.want, tt.truncated)
		}
	}
}
