package main

import "github.com/dubboroute/dubboroute/integration/adaptivesvc/internal/capfleet"

func main() { capfleet.ConsumerMain() }
