package javayaml

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// SnakeYAML's LoaderOptions defaults.
const (
	// MaxDepth is the deepest node SnakeYAML composes: it refuses to enter a
	// node (scalars and keys included) while 50 nodes are open above it, so
	// the top-level node is depth 1 and depth 52 is refused.
	MaxDepth = 51
	// MaxCollectionAliases is maxAliasesForCollections: the 51st alias to a
	// mapping or sequence is refused.
	MaxCollectionAliases = 50
	// MaxCodePoints is codePointLimit (3 MiB code points).
	MaxCodePoints = 3 * 1024 * 1024
)

// Error is a text SnakeYAML's default loader refuses.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// Check returns an *Error when content exceeds one of SnakeYAML's default
// limits. Text that is not valid YAML is left to the caller's parser (nil).
func Check(content string) error {
	if n := utf8.RuneCountInString(content); n > MaxCodePoints {
		return &Error{Line: 1, Msg: fmt.Sprintf("the text has %d code points, more than SnakeYAML's limit of %d (Java refuses it)", n, MaxCodePoints)}
	}
	dec := yaml.NewDecoder(strings.NewReader(content))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) || err != nil {
			return nil
		}
		aliases := 0
		for _, n := range doc.Content {
			if err := walk(n, 1, &aliases); err != nil {
				return err
			}
		}
	}
}

func walk(n *yaml.Node, depth int, aliases *int) error {
	if n.Kind == yaml.AliasNode {
		if n.Alias != nil && (n.Alias.Kind == yaml.MappingNode || n.Alias.Kind == yaml.SequenceNode) {
			*aliases++
			if *aliases > MaxCollectionAliases {
				return &Error{Line: n.Line, Msg: fmt.Sprintf("more than %d aliases to collections (SnakeYAML's maxAliasesForCollections; Java refuses it)", MaxCollectionAliases)}
			}
		}
		return nil
	}
	if depth > MaxDepth {
		return &Error{Line: n.Line, Msg: fmt.Sprintf("nodes nested deeper than %d (SnakeYAML's nesting depth limit; Java refuses it)", MaxDepth)}
	}
	for _, c := range n.Content {
		if err := walk(c, depth+1, aliases); err != nil {
			return err
		}
	}
	return nil
}
