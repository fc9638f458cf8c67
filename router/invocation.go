package router

// Attachments is what a router reads invocation attachments through. A
// dubbo-go base.Invocation satisfies it directly, so adapting a dubbo-go call
// costs nothing.
type Attachments interface {
	GetAttachment(key string) (string, bool)
}

// AttachmentMap is a plain map of attachments.
type AttachmentMap map[string]string

// GetAttachment implements Attachments.
func (m AttachmentMap) GetAttachment(key string) (string, bool) {
	v, ok := m[key]
	return v, ok
}

// Call is the per-call view a router sees: the only things that vary from one
// call of a consumer to the next. Pass it by pointer; routers never retain it.
type Call struct {
	// Method is the method name as Java sees it: for generic $invoke and
	// $invokeAsync calls, the real method name (the first argument).
	Method string
	// Args are the raw invocation arguments (for $invoke: name, types, args).
	Args []any
	// Attachments may be nil.
	Attachments Attachments
	// Generic is true for a generic call ($invoke / $invokeAsync): Args are
	// then (method, parameter types, arguments), as Java declares them.
	Generic bool
}

// Attachment returns an attachment value, ("", false) when absent.
func (c *Call) Attachment(key string) (string, bool) {
	if c == nil || c.Attachments == nil {
		return "", false
	}
	return c.Attachments.GetAttachment(key)
}

// RealMethodName resolves generic calls the way Java's RpcUtils.getMethodName
// does: for $invoke / $invokeAsync with a string first argument, that argument.
func RealMethodName(method string, args []any) string {
	if (method == "$invoke" || method == "$invokeAsync") && len(args) > 0 {
		if s, ok := args[0].(string); ok {
			return s
		}
	}
	return method
}
