package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
)

//go:embed *.condition-router *.tag-router *.gray-router
var files embed.FS

// Get returns the content of the rule stored under key.
func Get(key string) (string, error) {
	b, err := fs.ReadFile(files, FileName(key))
	if err != nil {
		return "", fmt.Errorf("sample rule %q: %w", key, err)
	}
	return string(b), nil
}

// FileName is the file name of a key.
func FileName(key string) string { return strings.ReplaceAll(key, ":", "%3A") }

// MustGet is Get for keys known to exist; it panics otherwise.
func MustGet(key string) string {
	s, err := Get(key)
	if err != nil {
		panic(err)
	}
	return s
}

// Keys lists the embedded rule keys.
func Keys() []string {
	var out []string
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		if k, err := url.PathUnescape(e.Name()); err == nil {
			out = append(out, k)
		}
	}
	return out
}
