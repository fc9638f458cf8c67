// Package pool keeps a process's clients of one kind (directory/zookeeper's,
// directory/nacos's), one per set of settings: dialled on first use, shared
// by every user with the same settings, and kept for the process's
// lifetime, as dubbo-go keeps its registry and config-center clients.
package pool
