package mock

import (
	"reflect"
	"testing"
)

func TestModeAndParse(t *testing.T) {
	for v, want := range map[string]Mode{"": None, "false": None, "0": None, "null": None, "N/A": None,
		"force:return null": Force, "force": Force, "return null": Fail, "fail:return 1": Fail, "true": Fail, "throw": Fail} {
		if got := ModeOf(v); got != want {
			t.Errorf("ModeOf(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]Action{
		"return": {Return, "null"}, "force:return null": {Return, "null"}, "fail:return empty": {Return, "empty"},
		"return `x`": {Return, `"x"`}, "throw": {Throw, ""}, "throw a.B": {Throw, "a.B"}, "true": {Impl, "default"},
		"force": {Impl, "default"}, "fail:return": {Impl, "return"}, "return%20%7B%7D": {Return, "{}"},
	} {
		got, err := Parse(v)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %+v, %v, want %+v", v, got, err, want)
		}
	}
}

type pojo struct {
	Name string
	Tags []string
}

func TestReturnValue(t *testing.T) {
	for _, c := range []struct {
		text string
		typ  reflect.Type
		want any
	}{
		{"empty", reflect.TypeFor[[]string](), []string{}},
		{"empty", reflect.TypeFor[int32](), int32(0)},
		{"empty", reflect.TypeFor[*pojo](), &pojo{Tags: []string{}}},
		{"123", reflect.TypeFor[string](), "123"},
		{"123", reflect.TypeFor[int64](), int64(123)},
		{`'12'`, reflect.TypeFor[int32](), int32(12)},
		{`{"Name":"a"}`, reflect.TypeFor[*pojo](), &pojo{Name: "a"}},
	} {
		v, err := ReturnValue(c.text, c.typ)
		if err != nil || !reflect.DeepEqual(v.V, c.want) {
			t.Errorf("ReturnValue(%q, %v) = %#v, %v, want %#v", c.text, c.typ, v.V, err, c.want)
		}
	}
	if v, _ := ReturnValue("null", reflect.TypeFor[string]()); !v.Null {
		t.Error("return null is not null")
	}
	if _, err := ReturnValue("abc", reflect.TypeFor[int32]()); err == nil {
		t.Error("return abc as int: want an error")
	}
}
