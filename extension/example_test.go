package extension_test

import (
	"context"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension"
)

// An application registers dubboroute's metrics with its own Prometheus
// registry.
func ExampleCollectors() {
	reg := prometheus.NewRegistry()
	cs := extension.Collectors()
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			fmt.Println("register:", err)
			return
		}
	}
	fmt.Println(len(cs) > 0)
	// Output: true
}

// Work handed to a goroutine with a fresh context keeps the lane of the
// call being served.
func ExampleWithLane() {
	served := extension.WithLane(context.Background(), extension.NewLane(map[string]string{"dubbo.tag": "gray"}))
	l, ok := extension.LaneFrom(served)
	done := make(chan string)
	go func() {
		l2, _ := extension.LaneFrom(extension.WithLane(context.Background(), l))
		tag, _ := l2.Get("dubbo.tag")
		done <- tag
	}()
	fmt.Println(ok, <-done)
	_, ok = extension.LaneFrom(context.Background())
	fmt.Println(ok)
	// Output:
	// true gray
	// false
}

// Lanes can be turned off for the process (as DUBBOROUTE_LANE=off does).
func ExampleSetLaneConfig() {
	prev := extension.LaneConfigInUse()
	defer extension.SetLaneConfig(prev)
	extension.SetLaneConfig(extension.LaneConfig{Off: true})
	fmt.Println(extension.LaneConfigInUse().Off)
	// Output: true
}
