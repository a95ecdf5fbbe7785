package tool

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFromMap is schemaFromMap, for the tests of package tool_test.
var SchemaFromMap = schemaFromMap

// RoundTripSchema is what newParamSchema made of m before schemaFromMap:
// m marshalled and unmarshalled into a jsonschema.Schema.
func RoundTripSchema(m map[string]any) (*jsonschema.Schema, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	s := &jsonschema.Schema{}
	return s, json.Unmarshal(b, s)
}
