package number

import "reflect"

// Kind is the class of a Go numeric type.
type Kind uint8

// Kinds.
const (
	// None is a value of no Go numeric type (named numeric types included:
	// only the predeclared types are numbers here).
	None Kind = iota
	// Int is int, int8, int16, int32 or int64 (Value.I).
	Int
	// Uint is uint, uint8, uint16, uint32, uint64 or uintptr (Value.U).
	Uint
	// Float is float32 or float64 (Value.F).
	Float
)

// Value is a widened number.
type Value struct {
	Kind Kind
	// Bits is the Go type's size in bits: 8, 16, 32 or 64 (int, uint and
	// uintptr: the platform's size).
	Bits int
	I    int64
	U    uint64
	F    float64
}

// Of widens v. It does not allocate.
func Of(v any) Value {
	switch v.(type) {
	case int, int8, int16, int32, int64:
		rv := reflect.ValueOf(v)
		return Value{Kind: Int, Bits: rv.Type().Bits(), I: rv.Int()}
	case uint, uint8, uint16, uint32, uint64, uintptr:
		rv := reflect.ValueOf(v)
		return Value{Kind: Uint, Bits: rv.Type().Bits(), U: rv.Uint()}
	case float32, float64:
		rv := reflect.ValueOf(v)
		return Value{Kind: Float, Bits: rv.Type().Bits(), F: rv.Float()}
	}
	return Value{}
}
