package api

import (
	"strconv"
	"strings"

	hessian "github.com/apache/dubbo-go-hessian2"
)

// Interface is the Java interface name: the dubbo path, the interface
// parameter and the ZooKeeper node /dubbo/<Interface>/providers.
const Interface = "com.muke.dubbocourse.common.api.BookFacade"

// ProviderApp is the provider application of the seeds.
const ProviderApp = "demo-provider"

// Method names as Java declares them (condition rules compare them exactly).
const (
	MethodQueryAll    = "queryAll"
	MethodQueryByName = "queryByName"
)

// ServiceRuleKey is the config-center key of the service-scope condition
// rule (<interface>:<version>:<group>.condition-router, no version/group).
const ServiceRuleKey = Interface + "::.condition-router"

// Book is com.muke.dubbocourse.common.api.Book {String name; String author}.
type Book struct {
	Name   string `hessian:"name"`
	Author string `hessian:"author"`
}

// JavaClassName implements hessian.POJO.
func (*Book) JavaClassName() string { return "com.muke.dubbocourse.common.api.Book" }

func init() {
	hessian.RegisterPOJO(&Book{})
}

// servedByPrefix is how providers (Go and Java alike) sign the books they
// return: author "served-by-<port>".
const servedByPrefix = "served-by-"

// ServedBy is the author a provider on port writes into every Book.
func ServedBy(port int) string { return servedByPrefix + strconv.Itoa(port) }

// PortOf extracts the serving port from a Book's author, 0 if unsigned.
func PortOf(b *Book) int {
	if b == nil || !strings.HasPrefix(b.Author, servedByPrefix) {
		return 0
	}
	p, err := strconv.Atoi(strings.TrimPrefix(b.Author, servedByPrefix))
	if err != nil {
		return 0
	}
	return p
}
