package consistenthash

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/dubboroute/dubboroute/internal/javastr"
	"github.com/dubboroute/dubboroute/internal/number"
)

// AppendJava appends Java's String.valueOf of the value a Go argument
// becomes on the wire (hessian2 or triple), for the argument types that
// cross it:
//
//   - nil (and a nil pointer) is "null"; bool is true/false; strings as
//     they are;
//   - every integer type in decimal (Byte, Short, Integer, Long all print
//     so);
//   - float64 as Java's Double.toString and float32 as Float.toString: the
//     shortest digits that read back to the value (Java 19+; Java 17's
//     FloatingDecimal prints one more digit for a few values: a pinned
//     divergence), decimal notation for magnitudes in [1e-3, 1e7) with at
//     least one fraction digit ("1.0"), computerised scientific notation
//     otherwise ("1.0E7", "1.5E-4"), NaN, Infinity, -Infinity, -0.0;
//   - *big.Int as BigInteger.toString;
//   - time.Time as java.util.Date.toString ("Tue Dec 01 19:42:48 UTC 2026",
//     in the Go process's location, as Java prints in the JVM's zone);
//   - slices and arrays as java.util.List.toString ("[1, a, null]"),
//     []byte included (a Java byte[] would print as [B@<identity hash>,
//     which no two JVMs agree on);
//   - maps as java.util.HashMap.toString ("{k=v, k2=v2}") in HashMap's
//     iteration order for the keys whose Java hashCode is known (strings,
//     numbers, booleans: bucket order of a HashMap filled by hessian's
//     deserializer), key text order within a bucket and for other keys;
//   - a value with a String() method (fmt.Stringer) as that: the way to
//     mirror a Java POJO's own toString;
//   - any other struct or pointer (a POJO without toString) as fmt's %v.
//     Java's Object.toString is class@identityHashCode, different in every
//     JVM and run, so no Go rendering can match it: such arguments should
//     not be hash arguments (lint says so for Java consumers too).
//
// Pointers to any of these print what they point to.
func AppendJava(buf []byte, v any) []byte {
	if out, ok := appendScalar(buf, v); ok {
		return out
	}
	switch x := v.(type) {
	case *big.Int:
		if x == nil {
			return append(buf, "null"...)
		}
		return x.Append(buf, 10)
	case time.Time:
		return x.AppendFormat(buf, "Mon Jan 02 15:04:05 MST 2006")
	case []byte:
		return appendList(buf, len(x), func(buf []byte, i int) []byte { return strconv.AppendInt(buf, int64(int8(x[i])), 10) })
	case []any:
		return appendList(buf, len(x), func(buf []byte, i int) []byte { return AppendJava(buf, x[i]) })
	case []string:
		return appendList(buf, len(x), func(buf []byte, i int) []byte { return append(buf, x[i]...) })
	case fmt.Stringer:
		if rv := reflect.ValueOf(x); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return append(buf, "null"...)
		}
		return append(buf, x.String()...)
	}
	return appendReflect(buf, reflect.ValueOf(v))
}

func appendReflect(buf []byte, rv reflect.Value) []byte {
	switch rv.Kind() {
	case reflect.Invalid:
		return append(buf, "null"...)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return append(buf, "null"...)
		}
		return AppendJava(buf, rv.Elem().Interface())
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return append(buf, "null"...)
		}
		return appendList(buf, rv.Len(), func(buf []byte, i int) []byte { return AppendJava(buf, rv.Index(i).Interface()) })
	case reflect.Map:
		if rv.IsNil() {
			return append(buf, "null"...)
		}
		return appendMap(buf, rv)
	case reflect.Bool:
		return strconv.AppendBool(buf, rv.Bool())
	case reflect.String:
		return append(buf, rv.String()...)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(buf, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(buf, rv.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return javastr.AppendDouble(buf, rv.Float(), rv.Type().Bits())
	}
	return fmt.Appendf(buf, "%v", rv.Interface())
}

// appendList prints n elements as java.util.List.toString does ("[a, b]"),
// elem appending element i.
func appendList(buf []byte, n int, elem func(buf []byte, i int) []byte) []byte {
	buf = append(buf, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = elem(buf, i)
	}
	return append(buf, ']')
}

type mapEntry struct {
	key, val string
	hash     int32
	known    bool
}

// appendMap prints a map as a java.util.HashMap filled with its entries by
// hessian's MapDeserializer (new HashMap(), then put in order).
func appendMap(buf []byte, rv reflect.Value) []byte {
	es := make([]mapEntry, 0, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		k, v := it.Key().Interface(), it.Value().Interface()
		h, known := javaHash(k)
		es = append(es, mapEntry{key: string(AppendJava(nil, k)), val: string(AppendJava(nil, v)), hash: h, known: known})
	}
	capacity := 16
	for float64(len(es)) > 0.75*float64(capacity) {
		capacity *= 2
	}
	bucket := func(h int32) int { return int((uint32(h) ^ uint32(h)>>16) & uint32(capacity-1)) }
	slices.SortStableFunc(es, func(a, b mapEntry) int {
		if a.known != b.known {
			if a.known {
				return -1
			}
			return 1
		}
		if a.known {
			if d := bucket(a.hash) - bucket(b.hash); d != 0 {
				return d
			}
		}
		return strings.Compare(a.key, b.key)
	})
	buf = append(buf, '{')
	for i, e := range es {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, e.key...)
		buf = append(buf, '=')
		buf = append(buf, e.val...)
	}
	return append(buf, '}')
}

// appendScalar is AppendJava for nil, strings, booleans and numbers; ok
// is false for any other type.
func appendScalar(buf []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(buf, "null"...), true
	case string:
		return append(buf, x...), true
	case bool:
		return strconv.AppendBool(buf, x), true
	}
	switch n := number.Of(v); n.Kind {
	case number.Int:
		return strconv.AppendInt(buf, n.I, 10), true
	case number.Uint:
		return strconv.AppendUint(buf, n.U, 10), true
	case number.Float:
		return javastr.AppendDouble(buf, n.F, n.Bits), true
	}
	return buf, false
}

// javaHash is the Java hashCode of the boxed value a Go map key becomes.
func javaHash(k any) (int32, bool) {
	switch x := k.(type) {
	case string:
		var h int32
		for _, c := range utf16.Encode([]rune(x)) {
			h = 31*h + int32(c)
		}
		return h, true
	case bool:
		if x {
			return 1231, true
		}
		return 1237, true
	}
	// Byte, Short and Integer hash to their value, Long to its two halves
	// XORed, Double and Float to their bits (NaN canonical); Java has no
	// unsigned types.
	switch n := number.Of(k); {
	case n.Kind == number.Int && n.Bits < 64:
		return int32(n.I), true
	case n.Kind == number.Int:
		return longHash(n.I), true
	case n.Kind == number.Float && n.Bits == 32:
		f := float32(n.F)
		if f != f {
			return int32(0x7fc00000), true
		}
		return int32(math.Float32bits(f)), true
	case n.Kind == number.Float:
		f := n.F
		if f != f {
			f = math.NaN()
		}
		return longHash(int64(math.Float64bits(f))), true
	}
	return 0, false
}

func longHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }
