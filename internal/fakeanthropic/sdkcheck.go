package fakeanthropic

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
)

// checkSDK reads body as the official SDK's MessageNewParams and says it
// again: a field the SDK does not know, or one of the wrong shape, does
// not come back the same. "stream" is the SDK's to add, not a param.
func checkSDK(body []byte) error {
	var p sdk.MessageNewParams
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("the SDK cannot read the body: %v", err)
	}
	again, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("the SDK cannot say the body again: %v", err)
	}
	var sent, said map[string]any
	if err := json.Unmarshal(body, &sent); err != nil {
		return err
	}
	if err := json.Unmarshal(again, &said); err != nil {
		return err
	}
	delete(sent, "stream")
	if path := differ("", sent, said); path != "" {
		return fmt.Errorf("the body differs from the SDK's MessageNewParams at %s", path)
	}
	return nil
}

// differ is the first path where a and b differ, "" when they do not.
func differ(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return path
		}
		for _, k := range slices.Sorted(maps.Keys(av)) {
			if d := differ(path+"."+k, av[k], bv[k]); d != "" {
				return d
			}
		}
		for _, k := range slices.Sorted(maps.Keys(bv)) {
			if _, ok := av[k]; !ok {
				return path + "." + k + " (added)"
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return path
		}
		for i := range av {
			if d := differ(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return path
	}
	return ""
}
