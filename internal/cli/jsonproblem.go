package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// jsonProblem describes a JSON decoding error of outside input in the
// input's own terms: encoding/json's type errors name Go types ("Go value
// of type []cli.contentBlock", "Go struct field rawInput.type") that mean
// nothing to the program that wrote the line.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	where := "the value"
	if te.Field != "" {
		where = strconv.Quote(te.Field)
	}
	return fmt.Sprintf("%s must be %s, not %s", where, jsonKindOf(te.Type), te.Value)
}

// jsonKindOf names what JSON value decodes into t.
func jsonKindOf(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKindOf(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}
