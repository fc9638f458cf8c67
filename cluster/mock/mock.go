package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/dubboroute/dubboroute/cluster/strategy"
	"github.com/dubboroute/dubboroute/internal/enum"
	"github.com/dubboroute/dubboroute/internal/javastr"
)

// Mode is what MockClusterInvoker does with a call.
type Mode uint8

const (
	// None: invoke the providers, no mock.
	None Mode = iota
	// Force: mock without calling any provider.
	Force
	// Fail: invoke; mock a call that failed with a non-business exception.
	Fail
)

var modeNames = [...]string{"none", "force", "fail"}

// String names the mode.
func (m Mode) String() string { return enum.Name(modeNames[:], m, "mode") }

// IsEmpty is Java's ConfigUtils.isEmpty: "", "false", "0", "null", "N/A"
// (case-insensitive) mean no value.
func IsEmpty(v string) bool {
	switch strings.ToLower(v) {
	case "", "false", "0", "null", "n/a":
		return true
	}
	return false
}

// ModeOf is MockClusterInvoker.invoke's decision on the trimmed mock
// value: empty per IsEmpty → None; starting with "force" (case-sensitive)
// → Force; anything else → Fail.
func ModeOf(value string) Mode {
	v := strings.TrimSpace(value)
	switch {
	case IsEmpty(v):
		return None
	case strings.HasPrefix(v, "force"):
		return Force
	}
	return Fail
}

// ShouldMock reports whether fail-mock mocks a call whose outcome is k:
// thrown non-business exceptions and results carrying a non-business
// RpcException (triple status errors). Business exceptions are returned
// and thrown business RpcExceptions rethrown.
func ShouldMock(k strategy.Kind) bool {
	return k == strategy.Thrown || k == strategy.ResultRPC
}

// ActionKind is what a mock does.
type ActionKind uint8

const (
	// Return returns a value (Action.Text is its text).
	Return ActionKind = iota
	// Throw fails: without a class (Text "") a non-business RpcException
	// "mocked exception for service degradation.", with one a business
	// exception of that class.
	Throw
	// Impl calls a mock implementation: Text "default" is the one
	// registered for the interface (Java's <Interface>Mock), other names
	// one registered under that name.
	Impl
)

// Action is a normalized mock value.
type Action struct {
	Kind ActionKind
	Text string
}

// Java's MockInvoker prefixes.
const (
	returnPrefix = "return "
	throwPrefix  = "throw"
	failPrefix   = "fail:"
	forcePrefix  = "force:"
	// DegradeMessage is the message of a mocked exception.
	DegradeMessage = "mocked exception for service degradation."
)

// Normalize is Java's MockInvoker.normalizeMock on the URL-decoded value.
func Normalize(v string) string {
	v = strings.TrimSpace(v)
	if v == "" {
		return v
	}
	if strings.EqualFold(v, "return") {
		return returnPrefix + "null"
	}
	if strings.EqualFold(v, "true") || strings.EqualFold(v, "default") || strings.EqualFold(v, "fail") || strings.EqualFold(v, "force") {
		return "default"
	}
	if strings.HasPrefix(v, failPrefix) {
		v = strings.TrimSpace(v[len(failPrefix):])
	}
	if strings.HasPrefix(v, forcePrefix) {
		v = strings.TrimSpace(v[len(forcePrefix):])
	}
	if strings.HasPrefix(v, returnPrefix) || strings.HasPrefix(v, throwPrefix) {
		v = strings.ReplaceAll(v, "`", `"`)
	}
	return v
}

// Parse turns a mock value (as read from the URL) into an Action; an
// error for a blank value (Java: "mock can not be null").
func Parse(raw string) (Action, error) {
	if strings.TrimSpace(raw) == "" {
		return Action{}, errors.New("mock can not be null")
	}
	v := raw
	if d, err := url.QueryUnescape(raw); err == nil {
		v = d
	}
	v = Normalize(v)
	switch {
	case strings.HasPrefix(v, returnPrefix):
		return Action{Kind: Return, Text: strings.TrimSpace(v[len(returnPrefix):])}, nil
	case strings.HasPrefix(v, throwPrefix):
		return Action{Kind: Throw, Text: strings.TrimSpace(v[len(throwPrefix):])}, nil
	}
	return Action{Kind: Impl, Text: v}, nil
}

// Error is a failed mock (Java's RpcException "mock error : ..."): not a
// business exception; the caller sees it thrown.
type Error struct {
	// Msg is the mock's own failure.
	Msg string
	// Invoke is the failure that triggered a fail-mock (nil for force).
	Invoke error
	// Cause is the underlying error.
	Cause error
}

// Error implements error.
func (e *Error) Error() string {
	s := "mock error : " + e.Msg
	if e.Invoke != nil {
		s += ", invoke error is :" + e.Invoke.Error()
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// RPCCode implements strategy.Coder (Java keeps the mock exception's code:
// unknown).
func (e *Error) RPCCode() int { return strategy.CodeUnknown }

// ThrownError is the business exception of "throw <class>": the caller
// receives it as a provider's business exception of that class.
type ThrownError struct {
	// Class is the exception class named by the mock.
	Class string
	// Message is DegradeMessage.
	Message string
}

// Error implements error.
func (e *ThrownError) Error() string { return e.Class + ": " + e.Message }

// RPCCode implements strategy.Coder: a business exception.
func (e *ThrownError) RPCCode() int { return strategy.CodeBiz }

// Value is the outcome of a "return" mock.
type Value struct {
	// Null: the mock returns null (Go: the reply keeps its zero value).
	Null bool
	// V is the value otherwise, of the requested type when one was given.
	V any
}

// ReturnValue is Java's MockInvoker.parseMockValue followed by
// PojoUtils.realize into typ (nil: the return type is unknown, as for
// generic calls).
func ReturnValue(text string, typ reflect.Type) (Value, error) {
	var raw any
	isString := typ != nil && typ.Kind() == reflect.String
	switch {
	case text == "empty":
		if typ == nil {
			return Value{Null: true}, nil
		}
		return Value{V: emptyOf(typ, 0).Interface()}, nil
	case text == "null":
		return Value{Null: true}, nil
	case text == "true":
		raw = true
	case text == "false":
		raw = false
	case len(text) >= 2 && (text[0] == '"' && text[len(text)-1] == '"' || text[0] == '\'' && text[len(text)-1] == '\''):
		raw = text[1 : len(text)-1]
	case isString:
		raw = text
	case javastr.Digits(text):
		raw = json.Number(text)
	case strings.HasPrefix(text, "{"):
		var m map[string]any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return Value{}, fmt.Errorf("mock return %s: %w", text, err)
		}
		raw = m
	case strings.HasPrefix(text, "["):
		var l []any
		d := json.NewDecoder(strings.NewReader(text))
		d.UseNumber()
		if err := d.Decode(&l); err != nil {
			return Value{}, fmt.Errorf("mock return %s: %w", text, err)
		}
		raw = l
	default:
		raw = text
	}
	if typ == nil {
		return Value{V: raw}, nil
	}
	v, err := realize(raw, typ)
	if err != nil {
		return Value{}, fmt.Errorf("mock return %s as %v: %w", text, typ, err)
	}
	return Value{V: v.Interface()}, nil
}

// realize converts a parsed mock value to typ as PojoUtils.realize and
// CompatibleTypeUtils do for the types that cross the wire.
func realize(raw any, typ reflect.Type) (reflect.Value, error) {
	if typ.Kind() == reflect.Interface {
		if raw == nil {
			return reflect.Zero(typ), nil
		}
		if n, ok := raw.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				if i == int64(int32(i)) {
					return reflect.ValueOf(int32(i)), nil
				}
				return reflect.ValueOf(i), nil
			}
		}
		return reflect.ValueOf(raw), nil
	}
	switch s := raw.(type) {
	case string:
		switch typ.Kind() {
		case reflect.String:
			return reflect.ValueOf(s).Convert(typ), nil
		case reflect.Bool:
			return reflect.ValueOf(strings.EqualFold(s, "true")).Convert(typ), nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			i, err := strconv.ParseInt(s, 10, typ.Bits())
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(i).Convert(typ), nil
		case reflect.Float32, reflect.Float64:
			f, err := strconv.ParseFloat(s, typ.Bits())
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(f).Convert(typ), nil
		case reflect.Pointer:
			inner, err := realize(raw, typ.Elem())
			if err != nil {
				return reflect.Value{}, err
			}
			p := reflect.New(typ.Elem())
			p.Elem().Set(inner)
			return p, nil
		}
		return reflect.Value{}, fmt.Errorf("cannot convert %q to %v", s, typ)
	case json.Number:
		if typ.Kind() == reflect.Bool {
			// CompatibleTypeUtils: a number is true unless 0.
			f, err := s.Float64()
			if err != nil {
				return reflect.Value{}, err
			}
			return reflect.ValueOf(f != 0).Convert(typ), nil
		}
	case map[string]any:
		// Java's PojoUtils makes a new instance of a non-map, non-POJO
		// return type from a map: its default (0, false, "").
		// Primitive return types have no instance: Java fails.
		switch typ.Kind() {
		case reflect.String:
			return reflect.Zero(typ), nil
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Float32, reflect.Float64:
			return reflect.Value{}, fmt.Errorf("cannot make a %v from an object", typ)
		case reflect.Pointer:
			if k := typ.Elem().Kind(); k != reflect.Struct && k != reflect.Map {
				p := reflect.New(typ.Elem())
				return p, nil
			}
		}
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return reflect.Value{}, err
	}
	p := reflect.New(typ)
	if err := json.Unmarshal(b, p.Interface()); err != nil {
		return reflect.Value{}, err
	}
	return p.Elem(), nil
}

// emptyOf is Java's ReflectUtils.getEmptyObject: zero numbers and false,
// "" strings, empty slices and maps, structs with their fields filled to
// depth 2.
func emptyOf(typ reflect.Type, depth int) reflect.Value {
	v := reflect.New(typ).Elem()
	switch typ.Kind() {
	case reflect.Slice:
		v.Set(reflect.MakeSlice(typ, 0, 0))
	case reflect.Map:
		v.Set(reflect.MakeMap(typ))
	case reflect.Pointer:
		if typ.Elem().Kind() == reflect.Struct || depth == 0 {
			v.Set(reflect.New(typ.Elem()))
			v.Elem().Set(emptyOf(typ.Elem(), depth))
		}
	case reflect.Struct:
		if depth >= 2 {
			return v
		}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			if !f.IsExported() {
				continue
			}
			switch f.Type.Kind() {
			case reflect.Slice, reflect.Map, reflect.Struct, reflect.Pointer:
				v.Field(i).Set(emptyOf(f.Type, depth+1))
			}
		}
	}
	return v
}

// Implementations registered for service downgrade.
var (
	implMu sync.RWMutex
	impls  = map[string]any{}
)

// Register makes impl the mock implementation of an interface (Java's
// <Interface>Mock class, used by mock=true|default|fail|force): calls take
// the exported method of the invocation's method name (first letter upper
// case), with the call's arguments; it may return (T, error), (T) or
// (error). Registering nil removes it.
func Register(iface string, impl any) { RegisterNamed(iface+"Mock", impl) }

// RegisterNamed registers a mock implementation under a name a mock value
// can name (mock=<name>, Java's mock class name).
func RegisterNamed(name string, impl any) {
	implMu.Lock()
	defer implMu.Unlock()
	if impl == nil {
		delete(impls, name)
		return
	}
	impls[name] = impl
}

// Implementation finds the mock implementation for an Impl action of an
// interface ("default" → Register's), or an error as Java's "Failed to
// create mock implementation class".
func Implementation(iface string, a Action) (any, error) {
	name := a.Text
	if strings.EqualFold(name, "true") || strings.EqualFold(name, "default") {
		name = iface + "Mock"
	}
	implMu.RLock()
	impl, ok := impls[name]
	implMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("failed to create mock implementation class %s: no mock implementation registered as %s (mock.Register)", a.Text, name)
	}
	return impl, nil
}

// CallImpl calls method on impl with args and returns its value and
// error.
func CallImpl(impl any, method string, args []any) (any, error) {
	m := reflect.ValueOf(impl).MethodByName(exported(method))
	if !m.IsValid() {
		return nil, fmt.Errorf("mock implementation %T has no method %s", impl, exported(method))
	}
	t := m.Type()
	if t.NumIn() != len(args) && !t.IsVariadic() {
		return nil, fmt.Errorf("mock implementation %T.%s takes %d arguments, the call has %d", impl, exported(method), t.NumIn(), len(args))
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		want := t.In(min(i, t.NumIn()-1))
		if a == nil {
			in[i] = reflect.Zero(want)
			continue
		}
		av := reflect.ValueOf(a)
		if !av.Type().AssignableTo(want) {
			if av.Type().ConvertibleTo(want) {
				av = av.Convert(want)
			} else {
				return nil, fmt.Errorf("mock implementation %T.%s: argument %d is %T, want %v", impl, exported(method), i, a, want)
			}
		}
		in[i] = av
	}
	out := m.Call(in)
	var val any
	var err error
	for _, o := range out {
		if o.Type() == reflect.TypeFor[error]() {
			if !o.IsNil() {
				err = o.Interface().(error)
			}
			continue
		}
		val = o.Interface()
	}
	return val, err
}

func exported(m string) string {
	if m == "" {
		return m
	}
	return strings.ToUpper(m[:1]) + m[1:]
}
