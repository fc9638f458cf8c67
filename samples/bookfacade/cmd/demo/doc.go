// Command demo is the embedded BookFacade demo (`make demo`): one process,
// no external services. It starts three providers on the in-process memory
// registry (20880, 20881, and 20882 with status=gray; free ports are used
// when those are taken), two consumers (demo-consumer1, demo-consumer2) with
// loadbalance: gray reading rules from the memory config center, and walks
// through the seeds' scenarios, putting the rule files of
// samples/bookfacade/rules exactly as Dubbo Admin stores them. It prints a
// table per scenario (call -> serving ports) and one explain trace, then
// exits.
package main
