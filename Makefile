# dubboroute — one entry point for humans and CI.
#   make demo   the BookFacade demo, embedded (no external services)
#   make test   everything: lint, unit, race, fuzz, ZooKeeper and Java integration
#   make bench  side-by-side benchmarks against dubbo-go's built-ins
#   make lint   gofmt, go vet, staticcheck

GO ?= go

.PHONY: demo test bench lint build

demo:
	$(GO) run ./samples/bookfacade/cmd/demo

test:
	bash scripts/test.sh

bench:
	bash scripts/bench.sh

lint:
	bash scripts/lint.sh

build:
	$(GO) build ./...
