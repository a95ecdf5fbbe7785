package jsonerr

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestDescribe(t *testing.T) {
	type inner struct {
		On bool `json:"on"`
	}
	type target struct {
		ID    string   `json:"id"`
		N     int      `json:"n"`
		F     *float64 `json:"f"`
		List  []int    `json:"list"`
		Inner inner    `json:"inner"`
	}
	for _, tt := range []struct{ in, want string }{
		{`{"id":5}`, `"id" must be a string, not number`},
		{`{"n":"5"}`, `"n" must be an integer, not string`},
		{`{"n":1.5}`, `"n" must be an integer, not number 1.5`},
		{`{"f":"x"}`, `"f" must be a number, not string`},
		{`{"list":{}}`, `"list" must be an array, not object`},
		{`{"inner":{"on":1}}`, `"inner.on" must be true or false, not number`},
		{`[1]`, `the value must be an object, not array`},
		{`{`, `unexpected end of JSON input`},
	} {
		var v target
		if got := Describe(json.Unmarshal([]byte(tt.in), &v)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Describe(errors.New("other")); got != "other" {
		t.Errorf("other error: %q", got)
	}
}
