// Package memory is an in-process registry and config center for dubbo-go,
// registered under the name "memory" for both.
//
// It exists for the embedded demo and for tests that want real dubbo-go RPC
// without external services: providers and consumers in one process find
// each other through it (interface-level, as a ZooKeeper registry with
// registry-type: interface would), and rules can be put and deleted in
// process with the same events a ZooKeeper config center produces:
//
//   - creating or modifying a key delivers remoting.EventTypeAdd,
//   - putting empty content delivers remoting.EventTypeDel (ZooKeeper's
//     config center maps empty node data to a delete),
//   - deleting an existing key delivers remoting.EventTypeDel.
//
// These are real dubbo-go extension implementations (extension.SetRegistry,
// extension.SetConfigCenterFactory), not test doubles; the registry
// directory, router chain and cluster code run exactly as with ZooKeeper.
//
// Usage with the new API:
//
//	dubbo.WithRegistry(registry.WithRegistry("memory"), registry.WithAddress("memory://127.0.0.1:0"), registry.WithRegisterInterface())
//	dubbo.WithConfigCenter(config_center.WithConfigCenter("memory"), config_center.WithAddress("127.0.0.1:0"))
//
// and then memory.PutRule("demo-provider.tag-router", yaml) from anywhere in
// the process.
//
// Events are delivered synchronously in the goroutine that made the change,
// after the store's data lock is released and in the order of the changes; a
// listener must not change the same store from inside Process or Notify.
package memory
