// Package rules embeds the sample's rule files, stored exactly as Dubbo Admin
// writes them. A file's name is its config-center key, percent-encoded
// where a file name cannot hold the character (the service rule's "::" is
// "%3A%3A").
package rules
