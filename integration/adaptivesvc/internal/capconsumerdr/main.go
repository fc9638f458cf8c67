package main

import (
	// The one line a dubbo-go user adds.
	_ "github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/integration/adaptivesvc/internal/capfleet"
)

func main() { capfleet.ConsumerMain() }
