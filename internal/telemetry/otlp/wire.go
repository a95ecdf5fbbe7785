package otlp

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"google.golang.org/protobuf/encoding/protowire"
)

// enc appends protobuf fields to b. Fields are written in field-number
// order, as the generated code does; a proto3 scalar at its zero value is
// left out unless the field has presence (oneof members, optional
// fields), again as the generated code does, so that a receiver sees what
// the official exporters send.
type enc struct{ b []byte }

// open starts a length-delimited field: one byte is kept for the length,
// which close fixes (moving the content when it needs more than one).
func (e *enc) open(num protowire.Number) int {
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = append(e.b, 0)
	return len(e.b)
}

// close ends the field open started.
func (e *enc) close(start int) {
	n := len(e.b) - start
	if n < 0x80 {
		e.b[start-1] = byte(n)
		return
	}
	size := protowire.SizeVarint(uint64(n))
	e.b = append(e.b, make([]byte, size-1)...)
	copy(e.b[start-1+size:], e.b[start:start+n])
	protowire.AppendVarint(e.b[:start-1], uint64(n))
}

func (e *enc) varint(num protowire.Number, v uint64) {
	e.b = protowire.AppendTag(e.b, num, protowire.VarintType)
	e.b = protowire.AppendVarint(e.b, v)
}

func (e *enc) fixed64(num protowire.Number, v uint64) {
	e.b = protowire.AppendTag(e.b, num, protowire.Fixed64Type)
	e.b = protowire.AppendFixed64(e.b, v)
}

func (e *enc) fixed32(num protowire.Number, v uint32) {
	e.b = protowire.AppendTag(e.b, num, protowire.Fixed32Type)
	e.b = protowire.AppendFixed32(e.b, v)
}

func (e *enc) double(num protowire.Number, v float64) {
	e.fixed64(num, math.Float64bits(v))
}

func (e *enc) bytes(num protowire.Number, v []byte) {
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendBytes(e.b, v)
}

func (e *enc) string(num protowire.Number, v string) {
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendString(e.b, v)
}

// The implicit-presence forms: nothing is written for a zero value.

func (e *enc) varintNZ(num protowire.Number, v uint64) {
	if v != 0 {
		e.varint(num, v)
	}
}

func (e *enc) fixed64NZ(num protowire.Number, v uint64) {
	if v != 0 {
		e.fixed64(num, v)
	}
}

func (e *enc) fixed32NZ(num protowire.Number, v uint32) {
	if v != 0 {
		e.fixed32(num, v)
	}
}

func (e *enc) doubleNZ(num protowire.Number, v float64) {
	if math.Float64bits(v) != 0 {
		e.double(num, v)
	}
}

func (e *enc) bytesNZ(num protowire.Number, v []byte) {
	if len(v) != 0 {
		e.bytes(num, v)
	}
}

func (e *enc) stringNZ(num protowire.Number, v string) {
	if v != "" {
		e.string(num, v)
	}
}

// sint32NZ writes a zigzag-encoded sint32.
func (e *enc) sint32NZ(num protowire.Number, v int32) {
	e.varintNZ(num, protowire.EncodeZigZag(int64(v)))
}

// packedFixed64 writes a packed repeated fixed64 (or double, as bits).
func (e *enc) packedFixed64(num protowire.Number, n int, at func(int) uint64) {
	if n == 0 {
		return
	}
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendVarint(e.b, uint64(n)*8)
	for i := range n {
		e.b = protowire.AppendFixed64(e.b, at(i))
	}
}

// packedVarint writes a packed repeated uint64.
func (e *enc) packedVarint(num protowire.Number, vs []uint64) {
	if len(vs) == 0 {
		return
	}
	size := 0
	for _, v := range vs {
		size += protowire.SizeVarint(v)
	}
	e.b = protowire.AppendTag(e.b, num, protowire.BytesType)
	e.b = protowire.AppendVarint(e.b, uint64(size))
	for _, v := range vs {
		e.b = protowire.AppendVarint(e.b, v)
	}
}

// Field numbers of opentelemetry.proto.common.v1.
const (
	anyString = 1
	anyBool   = 2
	anyInt    = 3
	anyDouble = 4
	anyArray  = 5
	anyKVList = 6
	anyBytes  = 7

	arrayValues  = 1 // ArrayValue.values, KeyValueList.values
	kvKey        = 1
	kvValue      = 2
	scopeName    = 1
	scopeVersion = 2
	scopeAttrs   = 3
	resAttrs     = 1
)

// anyValue writes the fields of an AnyValue. Every kind of
// attribute.Value has its oneof member, written even at its zero value
// (a oneof member has presence); EMPTY is the empty AnyValue.
func (e *enc) anyValue(v attribute.Value) {
	switch v.Type() {
	case attribute.EMPTY:
	case attribute.BOOL:
		e.varint(anyBool, boolBit(v.AsBool()))
	case attribute.INT64:
		e.varint(anyInt, uint64(v.AsInt64()))
	case attribute.FLOAT64:
		e.double(anyDouble, v.AsFloat64())
	case attribute.STRING:
		e.string(anyString, v.AsString())
	case attribute.BYTESLICE:
		e.bytes(anyBytes, v.AsByteSlice())
	case attribute.BOOLSLICE:
		array(e, v.AsBoolSlice(), func(x bool) { e.varint(anyBool, boolBit(x)) })
	case attribute.INT64SLICE:
		array(e, v.AsInt64Slice(), func(x int64) { e.varint(anyInt, uint64(x)) })
	case attribute.FLOAT64SLICE:
		array(e, v.AsFloat64Slice(), func(x float64) { e.double(anyDouble, x) })
	case attribute.STRINGSLICE:
		array(e, v.AsStringSlice(), func(x string) { e.string(anyString, x) })
	case attribute.SLICE:
		array(e, v.AsSlice(), e.anyValue)
	case attribute.MAP:
		a := e.open(anyKVList)
		e.keyValues(arrayValues, v.AsMap())
		e.close(a)
	default:
		// A kind newer than this encoder: said, not dropped silently,
		// as the official exporters do.
		e.string(anyString, "INVALID")
	}
}

// array writes an AnyValue's ArrayValue of xs, one writing the fields of
// each element's AnyValue.
func array[T any](e *enc, xs []T, one func(T)) {
	a := e.open(anyArray)
	for _, x := range xs {
		m := e.open(arrayValues)
		one(x)
		e.close(m)
	}
	e.close(a)
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// keyValue writes one KeyValue message as field num.
func (e *enc) keyValue(num protowire.Number, kv attribute.KeyValue) {
	m := e.open(num)
	e.stringNZ(kvKey, string(kv.Key))
	v := e.open(kvValue)
	e.anyValue(kv.Value)
	e.close(v)
	e.close(m)
}

// keyValues writes each attribute as a repeated KeyValue field num.
func (e *enc) keyValues(num protowire.Number, kvs []attribute.KeyValue) {
	for _, kv := range kvs {
		e.keyValue(num, kv)
	}
}

// attrSet writes a set's attributes as a repeated KeyValue field num.
func (e *enc) attrSet(num protowire.Number, s *attribute.Set) {
	for it := s.Iter(); it.Next(); {
		e.keyValue(num, it.Attribute())
	}
}

// resource writes a Resource message as field num.
func (e *enc) resource(num protowire.Number, r *Resource) {
	m := e.open(num)
	for it := r.Set().Iter(); it.Next(); {
		e.keyValue(resAttrs, it.Attribute())
	}
	e.close(m)
}

// scope writes an InstrumentationScope message as field num.
func (e *enc) scope(num protowire.Number, s Scope) {
	m := e.open(num)
	e.stringNZ(scopeName, s.Name)
	e.stringNZ(scopeVersion, s.Version)
	e.attrSet(scopeAttrs, &s.Attributes)
	e.close(m)
}

// unixNano is t in nanoseconds since the epoch; before it (or the zero
// time) is 0, "unknown" to OTLP.
func unixNano(t time.Time) uint64 {
	return uint64(max(0, t.UnixNano()))
}

// clamp32 is a count as OTLP's uint32.
func clamp32(n int) uint32 {
	return uint32(min(max(n, 0), math.MaxUint32))
}
