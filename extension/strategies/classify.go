package strategies

import (
	"context"
	"errors"
	"strings"

	"dubbo.apache.org/dubbo-go/v3/protocol/dubbo/hessian2"
	"dubbo.apache.org/dubbo-go/v3/protocol/triple/triple_protocol"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/cluster/mock"
	"github.com/dubboroute/dubboroute/cluster/strategy"
)

// javaRpcException is the class a Java provider's own RpcException
// arrives with over dubbo.
const javaRpcException = "org.apache.dubbo.rpc.RpcException"

// Classify tells, as Java's cluster invokers would, what a dubbo-go
// result error is (nil: OK):
//
//   - dubbo protocol, status OK with an exception body (a provider's
//     business exception, Java or Go): hessian2.GenericException, or a
//     decoded Java exception type → Business; a Java RpcException sent by
//     the provider → ResultRPC;
//   - dubbo protocol, non-OK status ("java exception:" text), timeouts,
//     connection failures → Thrown;
//   - triple: code 17 (dubbo-go's business error) → Business; any other
//     status the server sent → ResultRPC (Java keeps a triple status in
//     the Result: not retried, fail-mocked); transport failures → Thrown;
//   - dubboroute's own errors: no provider → Thrown (code 6), strategy and
//     mock errors by their kind.
func Classify(err error) strategy.Kind {
	if err == nil {
		return strategy.OK
	}
	var se *strategy.Error
	if errors.As(err, &se) {
		return se.Kind()
	}
	var me *mock.Error
	if errors.As(err, &me) {
		return strategy.Thrown
	}
	var te *mock.ThrownError
	if errors.As(err, &te) {
		return strategy.Business
	}
	var np *cluster.NoProviderError
	if errors.As(err, &np) {
		return strategy.Thrown
	}
	var ge *hessian2.GenericException
	if errors.As(err, &ge) {
		if ge.ExceptionClass == javaRpcException {
			return strategy.ResultRPC
		}
		return strategy.Business
	}
	var gv hessian2.GenericException
	if errors.As(err, &gv) {
		if gv.ExceptionClass == javaRpcException {
			return strategy.ResultRPC
		}
		return strategy.Business
	}
	if triple_protocol.IsWireError(err) {
		if triple_protocol.CodeOf(err) == triple_protocol.CodeBizError {
			return strategy.Business
		}
		return strategy.ResultRPC
	}
	var jc interface{ JavaClassName() string }
	if errors.As(err, &jc) {
		return strategy.Business // a decoded Java exception POJO
	}
	if strings.HasPrefix(err.Error(), "got exception:") {
		return strategy.Business // an exception body that decoded to a plain value
	}
	return strategy.Thrown
}

// rpcError gives a failed call Java's RpcException code.
type rpcError struct {
	err  error
	code int
}

func (e *rpcError) Error() string { return e.err.Error() }
func (e *rpcError) Unwrap() error { return e.err }
func (e *rpcError) RPCCode() int  { return e.code }

// codeOf is the Java RpcException code a failed call's error stands for.
func codeOf(err error) int {
	var c strategy.Coder
	if errors.As(err, &c) {
		return c.RPCCode()
	}
	var np *cluster.NoProviderError
	if errors.As(err, &np) {
		return strategy.CodeNoInvoker
	}
	if errors.Is(err, context.DeadlineExceeded) || strings.Contains(strings.ToLower(err.Error()), "timeout") {
		return strategy.CodeTimeout
	}
	if triple_protocol.IsWireError(err) {
		switch triple_protocol.CodeOf(err) {
		case triple_protocol.CodeDeadlineExceeded:
			return strategy.CodeTimeout
		case triple_protocol.CodePermissionDenied:
			return strategy.CodeForbidden
		case triple_protocol.CodeUnavailable:
			return strategy.CodeNetwork
		}
		return strategy.CodeUnknown
	}
	return strategy.CodeNetwork
}

func asCoder(err error, c *strategy.Coder) bool { return errors.As(err, c) }
