// Package api is the seeds' BookFacade contract, wire-compatible with the
// Java interface com.muke.dubbocourse.common.api.BookFacade over the dubbo
// protocol with hessian2: Book values carry the Java class name, methods are
// called by their Java (lowercase) names.
package api
