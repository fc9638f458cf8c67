// Command dubboroute lints, evaluates and explains Dubbo routing rules
// (condition, tag and gray) with the same compiled code dubboroute's runtime
// uses, and reads, writes and watches them in ZooKeeper where Dubbo Admin
// keeps them. See README.md in this directory, or run dubboroute --help.
package main
