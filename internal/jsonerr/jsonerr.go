// Package jsonerr describes errors in decoding outside JSON (a client's
// params, a line of stream-json input) in the input's own terms.
// encoding/json's type errors name the reader's Go types ("Go struct field
// TaskQueryParams.id of type a2a.TaskID", "Go value of type
// []cli.contentBlock"), which mean nothing to the program that wrote the
// JSON.
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
)

// Describe returns err as a sentence about the JSON: for a value of the
// wrong kind, `"field" must be a string, not number`; any other error as
// it is.
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	where := "the value"
	if te.Field != "" {
		where = strconv.Quote(te.Field)
	}
	return fmt.Sprintf("%s must be %s, not %s", where, kindOf(te.Type), te.Value)
}

// kindOf names the JSON value that decodes into t.
func kindOf(t reflect.Type) string {
	if t == nil {
		return "another kind of value"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return kindOf(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// A fraction, or a number out of range, is a number too.
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another kind of value"
}
