package script

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/internal/enum"
	"github.com/dubboroute/dubboroute/internal/javayaml"
)

// Dialect says whose meaning a script rule gets.
type Dialect uint8

// Dialects.
const (
	// DialectAuto resolves at Parse: DialectDubboGo when the script calls
	// dubbo-go's Go-named API (GetURL, MethodName, Arguments, GetAttachment,
	// GetParam, .Ip/.Port/.Location) and nothing of Java's (getUrl,
	// getMethodName, java.*, Java.*, ...), DialectJava otherwise. A Java
	// consumer cannot run such a script (every Go name is a TypeError in
	// Nashorn, so Java passes every call through), so only dubbo-go's
	// meaning exists for it.
	DialectAuto Dialect = iota
	// DialectJava is Java Dubbo 3.3.6 on Java 8/11 (built-in Nashorn) or on
	// Java 15+ with standalone Nashorn on the class path.
	DialectJava
	// DialectDubboGo is dubbo-go v3.3.2's script router (without its panics).
	DialectDubboGo
	// DialectOff is Java 15+ without a script engine: the rule is read and
	// linted, every call passes through.
	DialectOff
)

var dialectNames = [...]string{"auto", "java", "dubbo-go", "off"}

// String is the dialect's setting value.
func (d Dialect) String() string { return enum.Name(dialectNames[:], d, "dialect") }

// ParseDialect reads a setting value: auto, java, dubbo-go (or dubbogo, go)
// or off (or none, java15), case-insensitive; "" is auto.
func ParseDialect(s string) (Dialect, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return DialectAuto, nil
	case "java", "nashorn":
		return DialectJava, nil
	case "dubbo-go", "dubbogo", "go":
		return DialectDubboGo, nil
	case "off", "none", "java15":
		return DialectOff, nil
	}
	return DialectAuto, fmt.Errorf("script dialect %q: want auto, java, dubbo-go or off", s)
}

// Rule is one parsed and compiled script rule.
type Rule struct {
	// Dialect is the resolved dialect (never DialectAuto).
	Dialect Dialect
	// Type is the engine name the rule names (Java's default "javascript").
	Type string
	// Key is the rule's key field (informational; only dubbo-go requires it).
	Key string
	// Enabled is false when the rule passes every call through by its own
	// fields (Java: enabled or valid false, or no script).
	Enabled bool
	// Script is the script text.
	Script string
	// ScriptLine is the line of the rule text where the script's first
	// line is (0: no script), so a script position maps to a rule line.
	ScriptLine int
	// Why says, for a rule that never routes, why (empty otherwise).
	Why string
	// Findings are remarks for lint: the script is valid but something in
	// it behaves surprisingly in the other dialect or on some JVMs.
	Findings []string

	prog *goja.Program
}

// Routes reports whether the rule runs a script for calls.
func (r *Rule) Routes() bool { return r != nil && r.prog != nil && r.Enabled }

// SyntaxError is a script that does not compile, with its position in the
// script text (line and column, 1-based).
type SyntaxError struct {
	Line, Column int
	// RuleLine is the line of the rule text (0 when unknown).
	RuleLine int
	Msg      string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("script rule, script line %d column %d: %s", e.Line, e.Column, e.Msg)
}

// ErrUnsupportedType is a rule naming an engine the dialect does not have.
var ErrUnsupportedType = errors.New("unsupported route engine type")

// javaEngineNames are the names NashornScriptEngineFactory registers;
// ScriptEngineManager.getEngineByName matches them exactly.
var javaEngineNames = map[string]bool{"nashorn": true, "Nashorn": true, "js": true, "JS": true, "JavaScript": true, "javascript": true, "ECMAScript": true, "ecmascript": true}

// goResultVar is the global dubbo-go assigns the script's value to; its
// prefix makes "function f(){...}(x)" an expression (an IIFE).
const (
	goResultVar    = "__go_program_result"
	goScriptPrefix = "\n" + goResultVar + " = "
)

// Parse reads a script rule (one YAML mapping, Java's ScriptRule and
// dubbo-go's RouterConfig fields) and compiles its script for dialect d.
// A rule that is valid but never routes (disabled, no script, DialectOff)
// is returned with Why set; an error means the rule is rejected (the
// previous rule stays in force).
func Parse(content string, d Dialect) (*Rule, error) {
	if err := javayaml.Check(content); err != nil {
		return nil, fmt.Errorf("script rule, %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(content), &doc); err != nil {
		return nil, fmt.Errorf("script rule: %w", err)
	}
	if len(doc.Content) != 1 || javayaml.Deref(doc.Content[0]).Kind != yaml.MappingNode {
		return nil, fmt.Errorf("script rule: the value is not a YAML mapping")
	}
	fields := map[string]*yaml.Node{}
	m := javayaml.Deref(doc.Content[0])
	for i := 0; i+1 < len(m.Content); i += 2 {
		fields[m.Content[i].Value] = m.Content[i+1]
	}
	r := &Rule{Type: "javascript", Enabled: true}
	// Java's casts: (String) for script, type, key, scope, configVersion.
	for _, k := range []string{"script", "type", "key", "scope", "configVersion"} {
		n, ok := fields[k]
		if !ok {
			continue
		}
		s, isString, ok := javayaml.CastString(n)
		if !ok {
			return nil, fmt.Errorf("script rule, line %d: %s must be a string (Java: ClassCastException, the update is ignored)", n.Line, k)
		}
		switch k {
		case "script":
			if isString {
				r.Script = s
				n = javayaml.Deref(n)
				r.ScriptLine = n.Line
				if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
					r.ScriptLine++
				}
			}
		case "type":
			if isString && s != "" {
				r.Type = s
			}
		case "key":
			r.Key = s
		}
	}
	if n, ok := fields["priority"]; ok {
		s, err := javayaml.ToString(n)
		if err == nil {
			_, err = strconv.ParseInt(s, 10, 32)
		}
		if err != nil {
			return nil, fmt.Errorf("script rule, line %d: priority is not an integer (Java: NumberFormatException, the update is ignored)", n.Line)
		}
	}
	flag := func(k string) (v, present bool) {
		n, ok := fields[k]
		if !ok {
			return true, false
		}
		s, err := javayaml.ToString(n)
		return err == nil && strings.EqualFold(s, "true"), true
	}
	enabled, hasEnabled := flag("enabled")
	valid, _ := flag("valid")
	if d == DialectAuto {
		d = detect(r.Script)
	}
	r.Dialect = d
	switch d {
	case DialectDubboGo:
		// dubbo-go: type, key and script required; type lower-cased; valid,
		// force, runtime, priority and scope ignored. A rule without
		// enabled panics dubbo-go (nil pointer); here it means true, the
		// default its RouterConfig declares.
		switch {
		case r.Type == "" || fields["type"] == nil:
			return nil, fmt.Errorf("script rule: dubbo-go requires type (javascript)")
		case strings.ToLower(r.Type) != "javascript":
			return nil, fmt.Errorf("script rule: type %q: %w (dubbo-go has javascript only)", r.Type, ErrUnsupportedType)
		case r.Key == "":
			return nil, fmt.Errorf("script rule: dubbo-go requires key")
		case r.Script == "":
			return nil, fmt.Errorf("script rule: dubbo-go requires script")
		}
		if !hasEnabled {
			r.Findings = append(r.Findings, "no enabled field: dubbo-go v3.3.2 panics on such a rule (nil pointer in Process); dubboroute reads it as enabled: true")
		}
		r.Enabled = enabled
		if !r.Enabled {
			r.Why = "enabled: false; every call passes through"
		}
	default:
		if !javaEngineNames[r.Type] {
			return nil, fmt.Errorf("script rule: type %q: %w (Java's engine names are javascript, js, JavaScript, nashorn, ECMAScript, in that spelling)", r.Type, ErrUnsupportedType)
		}
		r.Enabled = enabled && valid
		switch {
		case r.Script == "":
			r.Enabled, r.Why = false, "no script: Java treats the rule as invalid; every call passes through"
		case !r.Enabled:
			r.Why = "enabled or valid is false; every call passes through"
		}
	}
	if r.Script == "" {
		return r, nil
	}
	prog, err := compileScript(r.Script, d)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) && r.ScriptLine > 0 {
			se.RuleLine = r.ScriptLine + se.Line - 1
		}
		return nil, err
	}
	if d == DialectOff {
		r.Why = "script rules are off (as on Java 15+ without a script engine: Java logs error 2-11 on every update and passes every call through)"
		return r, nil
	}
	r.prog = prog
	return r, nil
}

// compileScript parses and compiles the script for dialect d. The Java
// dialect is Nashorn's default ES5: ES6 syntax is a syntax error there.
func compileScript(src string, d Dialect) (*goja.Program, error) {
	text, strict, lineShift := src, false, 0
	if d == DialectDubboGo {
		text, strict, lineShift = goScriptPrefix+src, true, 1
	}
	prg, err := parser.ParseFile(nil, "script", text, 0)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			p := list[0].Position
			col := p.Column
			if lineShift == 1 && p.Line == 2 {
				col -= len(goResultVar + " = ")
			}
			return nil, &SyntaxError{Line: p.Line - lineShift, Column: col, Msg: list[0].Message}
		}
		return nil, fmt.Errorf("script rule: %w", err)
	}
	if d != DialectDubboGo {
		if n, what := findES6(prg); n != nil {
			p := prg.File.Position(int(n.Idx0()) - prg.File.Base())
			return nil, &SyntaxError{Line: p.Line, Column: p.Column, Msg: what + " is ES6 syntax; Java's Nashorn runs ES5 (a syntax error there: error 2-14, every call passes through)"}
		}
	}
	if d != DialectDubboGo {
		rewriteLooseEquality(prg)
	}
	prog, err := goja.CompileAST(prg, strict)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) && se.File != nil {
			p := se.File.Position(se.Offset)
			return nil, &SyntaxError{Line: p.Line - lineShift, Column: p.Column, Msg: se.Message}
		}
		return nil, fmt.Errorf("script rule: %w", err)
	}
	return prog, nil
}

// es6 names the node types Nashorn's ES5 parser rejects.
var es6 = map[reflect.Type]string{
	reflect.TypeOf(&ast.ArrowFunctionLiteral{}):          "an arrow function",
	reflect.TypeOf(&ast.LexicalDeclaration{}):            "let/const",
	reflect.TypeOf(&ast.ForLoopInitializerLexicalDecl{}): "let/const",
	reflect.TypeOf(&ast.ForDeclaration{}):                "let/const",
	reflect.TypeOf(&ast.ForOfStatement{}):                "for...of",
	reflect.TypeOf(&ast.TemplateLiteral{}):               "a template literal",
	reflect.TypeOf(&ast.ClassLiteral{}):                  "a class",
	reflect.TypeOf(&ast.ClassDeclaration{}):              "a class",
	reflect.TypeOf(&ast.SpreadElement{}):                 "spread (...)",
	reflect.TypeOf(&ast.ObjectPattern{}):                 "destructuring",
	reflect.TypeOf(&ast.ArrayPattern{}):                  "destructuring",
	reflect.TypeOf(&ast.YieldExpression{}):               "yield",
	reflect.TypeOf(&ast.AwaitExpression{}):               "await",
	reflect.TypeOf(&ast.OptionalChain{}):                 "optional chaining",
	reflect.TypeOf(&ast.PropertyShort{}):                 "a shorthand property",
	reflect.TypeOf(&ast.SuperExpression{}):               "super",
	reflect.TypeOf(&ast.MetaProperty{}):                  "new.target",
}

var fileType = reflect.TypeOf(&file.File{})

// findES6 returns the first node of prg that is ES6 syntax, with its name.
func findES6(prg *ast.Program) (ast.Node, string) {
	var found ast.Node
	var what string
	walk(reflect.ValueOf(prg), func(v reflect.Value) bool {
		if found != nil {
			return false
		}
		if w, ok := es6[v.Type()]; ok {
			found, what = v.Interface().(ast.Node), w
			return false
		}
		switch n := v.Interface().(type) {
		case *ast.FunctionLiteral:
			if n.Async || n.Generator {
				found, what = n, "an async or generator function"
			} else if n.ParameterList != nil && n.ParameterList.Rest != nil {
				found, what = n, "a rest parameter"
			} else if n.ParameterList != nil {
				for _, b := range n.ParameterList.List {
					if b.Initializer != nil {
						found, what = n, "a default parameter"
					}
				}
			}
		case *ast.PropertyKeyed:
			if n.Computed {
				found, what = n, "a computed property name"
			}
		case *ast.BinaryExpression:
			if n.Operator.String() == "**" || n.Operator.String() == "??" {
				found, what = n, "the "+n.Operator.String()+" operator"
			}
		}
		return found == nil
	})
	return found, what
}

// walk calls f on every pointer-to-struct node reachable from v (depth
// first); f returns false to skip a node's children.
func walk(v reflect.Value, f func(reflect.Value) bool) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), f)
		}
	case reflect.Pointer:
		if v.IsNil() || v.Elem().Kind() != reflect.Struct {
			return
		}
		if v.Type() == fileType {
			return
		}
		if !f(v) {
			return
		}
		walk(v.Elem(), f)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walk(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walk(v.Index(i), f)
		}
	}
}

// goNames are members of dubbo-go's script bindings; javaNames of Java's.
var (
	goNames   = map[string]bool{"GetURL": true, "MethodName": true, "ActualMethodName": true, "Arguments": true, "GetAttachment": true, "GetAttachmentInterface": true, "GetAttachmentWithDefaultValue": true, "GetParam": true, "GetParamBool": true, "GetParamInt": true, "Ip": true, "Port": true, "Location": true, "IsAvailable": true}
	javaNames = map[string]bool{"getUrl": true, "getMethodName": true, "getArguments": true, "getAttachment": true, "getObjectAttachment": true, "getHost": true, "getPort": true, "getIp": true, "getAddress": true, "getParameter": true, "size": true, "equals": true, "isAvailable": true, "url": true}
)

// detect is DialectAuto's choice for a script (see DialectAuto).
func detect(src string) Dialect {
	prg, err := parser.ParseFile(nil, "script", src, 0)
	if err != nil {
		if prg, err = parser.ParseFile(nil, "script", goScriptPrefix+src, 0); err != nil {
			return DialectJava
		}
	}
	goSeen, javaSeen := false, false
	walk(reflect.ValueOf(prg), func(v reflect.Value) bool {
		switch n := v.Interface().(type) {
		case *ast.DotExpression:
			name := string(n.Identifier.Name)
			goSeen = goSeen || goNames[name]
			javaSeen = javaSeen || javaNames[name]
		case *ast.Identifier:
			javaSeen = javaSeen || n.Name == "java" || n.Name == "Java"
		}
		return true
	})
	if goSeen && !javaSeen {
		return DialectDubboGo
	}
	return DialectJava
}
