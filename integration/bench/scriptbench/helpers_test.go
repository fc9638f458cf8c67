package scriptbench

import (
	"fmt"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/router"
)

const (
	iface       = "com.muke.dubbocourse.common.api.BookFacade"
	providerApp = "demo-provider"
	implOurs    = "impl=dubboroute"
	implDubbogo = "impl=dubbogo"

	consumerText = "consumer://10.0.9.9/" + iface + "?application=demo-consumer1&interface=" + iface + "&side=consumer"
)

func name(impl string, n int) string { return fmt.Sprintf("%s/n=%d", impl, n) }

// providerURL is provider i of a fleet: ports alternate 20880/20881 (as in
// the parent package's fleet).
func providerURL(i int) string {
	return fmt.Sprintf("dubbo://10.%d.%d.%d:%d/%s?anyhost=true&application=%s&interface=%s&methods=queryAll,queryByName&side=provider",
		i>>16&255, i>>8&255, i&255, 20880+i%2, iface, providerApp, iface)
}

// fleet is one provider list with both sides' views.
type fleet struct {
	n        int
	invokers []base.Invoker
	consumer *common.URL
	ours     *router.URL
}

func newFleet(tb testing.TB, n int) *fleet {
	tb.Helper()
	f := &fleet{n: n, invokers: make([]base.Invoker, n)}
	for i := range f.invokers {
		u, err := common.NewURL(providerURL(i))
		if err != nil {
			tb.Fatal(err)
		}
		f.invokers[i] = base.NewBaseInvoker(u)
	}
	cu, err := common.NewURL(consumerText)
	if err != nil {
		tb.Fatal(err)
	}
	f.consumer, f.ours = cu, router.MustParseURL(consumerText)
	return f
}
