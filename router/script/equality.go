package script

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
)

// looseEqName is the global the Java dialect's rewritten == and != call.
const looseEqName = "__dubboroute_loose_eq"

// goja's == between a string and a number or boolean compares the string
// as an integer literal, so 1 == "1.0", true == "1.0" and 0 == "" are false
// there; ECMAScript (and Nashorn) convert the string with ToNumber and say
// true. dubbo-go runs goja as it is (the dubbo-go dialect keeps goja's
// answer); the Java dialect rewrites each == and != whose operands may meet
// that case into a call of looseEq (found by TestScriptOracleDifferential).

// rewriteLooseEquality replaces, in prg, every a == b by
// __dubboroute_loose_eq(a, b) and every a != b by !__dubboroute_loose_eq(a, b),
// except where an operand makes goja's answer right (null, undefined, a
// string literal goja and ToNumber read alike, both operands literals of
// one type).
func rewriteLooseEquality(prg *ast.Program) {
	rewriteExprs(reflect.ValueOf(prg))
}

func rewriteExprs(v reflect.Value) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		rewriteExprs(v.Elem())
		if b, ok := v.Interface().(*ast.BinaryExpression); ok && v.CanSet() && needsLooseEq(b) {
			call := &ast.CallExpression{
				Callee:           &ast.Identifier{Name: looseEqName, Idx: b.Idx0()},
				LeftParenthesis:  b.Idx0(),
				ArgumentList:     []ast.Expression{b.Left, b.Right},
				RightParenthesis: b.Idx1() - 1,
			}
			var e ast.Expression = call
			if b.Operator == token.NOT_EQUAL {
				e = &ast.UnaryExpression{Operator: token.NOT, Idx: b.Idx0(), Operand: call}
			}
			v.Set(reflect.ValueOf(&e).Elem())
		}
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Type() == fileType {
			return
		}
		rewriteExprs(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				rewriteExprs(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rewriteExprs(v.Index(i))
		}
	}
}

// needsLooseEq reports whether goja's answer to b (an == or !=) can differ
// from ECMAScript's.
func needsLooseEq(b *ast.BinaryExpression) bool {
	if b.Operator != token.EQUAL && b.Operator != token.NOT_EQUAL {
		return false
	}
	safe := func(e ast.Expression) bool {
		switch x := e.(type) {
		case *ast.NullLiteral:
			return true
		case *ast.Identifier:
			return x.Name == "undefined"
		case *ast.StringLiteral:
			return gojaReadsAlike(string(x.Value))
		}
		return false
	}
	if safe(b.Left) || safe(b.Right) {
		return false
	}
	_, ls := b.Left.(*ast.StringLiteral)
	_, rs := b.Right.(*ast.StringLiteral)
	_, ln := b.Left.(*ast.NumberLiteral)
	_, rn := b.Right.(*ast.NumberLiteral)
	return !(ls && rs) && !(ln && rn)
}

// gojaReadsAlike reports whether goja compares s with a number as
// ECMAScript's ToNumber does: s is not a number at all (NaN: never equal),
// or a plain decimal integer goja parses to the same value.
func gojaReadsAlike(s string) bool {
	t := strings.TrimSpace(s)
	if t != s || t == "" {
		return false
	}
	if _, err := strconv.ParseInt(t, 10, 64); err == nil {
		return t[0] != '+'
	}
	if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") || strings.HasPrefix(t, "0o") || strings.HasPrefix(t, "0b") ||
		strings.HasPrefix(t, "0O") || strings.HasPrefix(t, "0B") || strings.Contains(t, "Infinity") {
		return false
	}
	_, err := strconv.ParseFloat(t, 64)
	return err != nil && !strings.ContainsAny(t, "0123456789")
}

// looseEq is ECMAScript's == (IsLooselyEqual) where goja's differs: a
// string against a number or boolean compares ToNumber of both.
func looseEq(x, y goja.Value) bool {
	kx, ky := primKind(x), primKind(y)
	if (kx == kindString && (ky == kindNumber || ky == kindBool)) || (ky == kindString && (kx == kindNumber || kx == kindBool)) {
		return x.ToFloat() == y.ToFloat()
	}
	return x.Equals(y)
}

const (
	kindOther = iota
	kindString
	kindNumber
	kindBool
)

func primKind(v goja.Value) int {
	if v == nil {
		return kindOther
	}
	if _, ok := v.(*goja.Object); ok {
		return kindOther
	}
	t := v.ExportType()
	if t == nil {
		return kindOther
	}
	switch t.Kind() {
	case reflect.String:
		return kindString
	case reflect.Int, reflect.Int32, reflect.Int64, reflect.Float64, reflect.Float32:
		return kindNumber
	case reflect.Bool:
		return kindBool
	}
	return kindOther
}
