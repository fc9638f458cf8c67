package script

import (
	"reflect"
	"strconv"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	"github.com/dop251/goja/token"

	"github.com/dubboroute/dubboroute/router"
)

// setupGo builds the dubbo-go dialect's objects: invokers are
// scriptInvokerWrapper (GetURL(), IsAvailable()), URLs dubbo-go's
// common.URL fields and getters, invocation RPCInvocation's Go methods.
func (in *instance) setupGo() {
	rt := in.rt
	inv := func(this *goja.Object) *gInvoker {
		if v, ok := exported[*gInvoker](this); ok {
			return v
		}
		in.typeError("not an invoker")
		return nil
	}
	url := func(this *goja.Object) *router.URL {
		if v, ok := exported[*gURL](this); ok {
			return v.url()
		}
		in.typeError("not a URL")
		return nil
	}
	in.method("invoker.GetURL", func(t *goja.Object, a []goja.Value) goja.Value { return in.goURL(inv(t).idx) })
	in.method("invoker.IsAvailable", func(t *goja.Object, a []goja.Value) goja.Value { inv(t); return rt.ToValue(true) })
	param := func(t *goja.Object, a []goja.Value) (string, bool) {
		u := url(t)
		k, _ := argString(a, 0)
		v, ok := u.Params.Get(k)
		return v, ok && v != ""
	}
	in.method("url.GetParam", func(t *goja.Object, a []goja.Value) goja.Value {
		if v, ok := param(t, a); ok {
			return rt.ToValue(v)
		}
		d, _ := argString(a, 1)
		return rt.ToValue(d)
	})
	in.method("url.GetParamBool", func(t *goja.Object, a []goja.Value) goja.Value {
		if v, ok := param(t, a); ok {
			if b, err := strconv.ParseBool(v); err == nil {
				return rt.ToValue(b)
			}
		}
		return rt.ToValue(arg(a, 1).ToBoolean())
	})
	in.method("url.GetParamInt", func(t *goja.Object, a []goja.Value) goja.Value {
		if v, ok := param(t, a); ok {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil {
				return rt.ToValue(n)
			}
		}
		return rt.ToValue(arg(a, 1).ToInteger())
	})
	in.method("url.Service", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).Interface()) })
	in.method("url.String", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).String()) })

	in.method("invocation.MethodName", func(t *goja.Object, a []goja.Value) goja.Value {
		if in.call.Generic {
			return rt.ToValue("$invoke")
		}
		return rt.ToValue(in.call.Method)
	})
	in.method("invocation.ActualMethodName", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(in.call.Method) })
	in.method("invocation.Arguments", func(t *goja.Object, a []goja.Value) goja.Value {
		return rt.NewArray(append([]any(nil), in.call.Args...)...)
	})
	in.method("invocation.GetAttachment", func(t *goja.Object, a []goja.Value) goja.Value {
		k, _ := argString(a, 0)
		v, ok := in.call.Attachment(k)
		return rt.NewArray(v, ok)
	})
	in.method("invocation.GetAttachmentWithDefaultValue", func(t *goja.Object, a []goja.Value) goja.Value {
		k, _ := argString(a, 0)
		if v, ok := in.call.Attachment(k); ok {
			return rt.ToValue(v)
		}
		d, _ := argString(a, 1)
		return rt.ToValue(d)
	})
	in.method("invocation.GetAttachmentInterface", func(t *goja.Object, a []goja.Value) goja.Value {
		k, _ := argString(a, 0)
		if v, ok := in.call.Attachment(k); ok {
			return rt.ToValue(v)
		}
		return goja.Null()
	})
	in.invocation = in.newObject(&jObject{in: in, kind: "invocation", methods: []string{"MethodName", "ActualMethodName", "Arguments", "GetAttachment", "GetAttachmentWithDefaultValue", "GetAttachmentInterface"}})
	// dubbo-go's context is a Go context.Context scripts cannot use.
	in.context = in.newObject(&jObject{in: in, kind: "context"})
	_ = rt.Set("invocation", in.invocation)
	_ = rt.Set("context", in.context)
	_ = rt.Set(goResultVar, goja.Null())
}

func (in *instance) goInvoker(m int) *goja.Object {
	return in.memberObject(in.invokers, nil, m, func() getter { return &gInvoker{provider{in, m}} })
}

func (in *instance) goURL(m int) *goja.Object {
	return in.memberObject(in.urls, nil, m, func() getter { return &gURL{provider{in, m}} })
}

// gInvoker is dubbo-go's scriptInvokerWrapper.
type gInvoker struct{ provider }

func (v *gInvoker) Get(key string) goja.Value { return v.in.fnInvoker[key] }

// gURL is dubbo-go's *common.URL (read-only here: dubbo-go hands scripts a
// clone they may change).
type gURL struct{ provider }

func (u *gURL) Get(key string) goja.Value {
	url := u.url()
	rt := u.in.rt
	switch key {
	case "Ip":
		return rt.ToValue(url.Host)
	case "Port":
		if url.Port <= 0 {
			return rt.ToValue("")
		}
		return rt.ToValue(strconv.Itoa(url.Port))
	case "Location":
		if url.Port <= 0 {
			return rt.ToValue(url.Host)
		}
		return rt.ToValue(url.Host + ":" + strconv.Itoa(url.Port))
	case "Path":
		return rt.ToValue("/" + url.Path)
	case "Protocol":
		return rt.ToValue(url.Protocol)
	case "Username":
		return rt.ToValue(url.Username)
	case "Password":
		return rt.ToValue(url.Password)
	}
	return u.in.fnURL[key]
}
func (u *gURL) Keys() []string {
	return []string{"Ip", "Port", "Location", "Path", "Protocol", "Username", "Password"}
}

// assignedNames are the identifiers a script assigns or declares (any
// scope): the globals a run may leave behind.
func assignedNames(r *Rule) []string {
	src := r.Script
	if r.Dialect == DialectDubboGo {
		src = goScriptPrefix + src
	}
	prg, err := parser.ParseFile(nil, "script", src, 0)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	add := func(e ast.Expression) {
		if id, ok := e.(*ast.Identifier); ok && !seen[string(id.Name)] && string(id.Name) != goResultVar {
			seen[string(id.Name)] = true
			out = append(out, string(id.Name))
		}
	}
	walk(reflect.ValueOf(prg), func(v reflect.Value) bool {
		switch n := v.Interface().(type) {
		case *ast.AssignExpression:
			add(n.Left)
		case *ast.UnaryExpression:
			if n.Operator == token.INCREMENT || n.Operator == token.DECREMENT {
				add(n.Operand)
			}
		case *ast.ForInStatement:
			if fi, ok := n.Into.(*ast.ForIntoExpression); ok {
				add(fi.Expression)
			}
		case *ast.Binding:
			add(n.Target)
		case *ast.FunctionDeclaration:
			if n.Function != nil && n.Function.Name != nil {
				add(n.Function.Name)
			}
		}
		return true
	})
	return out
}
