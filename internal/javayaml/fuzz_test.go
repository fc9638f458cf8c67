package javayaml

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzCheck: every rule text from the config center passes Check before
// any parser. No input panics; a refusal is an *Error naming a line of the
// text; the answer does not depend on anything but the text; a refused
// text is still refused inside a further mapping (a limit never loosens
// with more nesting).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"tags: " + strings.Repeat("[", 51) + strings.Repeat("]", 51) + "\n",
		"x: &a [1]\ny: [" + strings.TrimSuffix(strings.Repeat("*a, ", 51), ", ") + "]\n",
		"a: [unclosed\n", "---\na: 1\n---\nb: " + strings.Repeat("{c: ", 60) + "1" + strings.Repeat("}", 60) + "\n",
		"x: &a [*a]\n", "*a", "&a a: *a\n", "? [a]\n: b\n", "%YAML 1.2\n---\n!!map {a: b}\n", "", "\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		err := Check(content)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is not an *Error: %v", err)
			}
			if e.Line < 0 || e.Line > strings.Count(content, "\n")+1 {
				t.Fatalf("error names line %d of a %d-line text", e.Line, strings.Count(content, "\n")+1)
			}
			if e.Error() == "" {
				t.Fatal("empty message")
			}
		}
		if again := Check(content); (again == nil) != (err == nil) {
			t.Fatalf("Check is not deterministic: %v then %v", err, again)
		}
		// One document refused for its depth stays refused one level down.
		var e *Error
		if errors.As(err, &e) && strings.Contains(e.Msg, "deeper") && !strings.Contains(content, "---") && !strings.Contains(content, "...") &&
			!strings.HasPrefix(content, "%") && !strings.Contains(content, "\t") {
			// Accepted means Check passes a text that is YAML: Check leaves
			// a text that is not to the caller's parser, which refuses it
			// (the nesting can make the text invalid, as a flow sequence
			// followed by a scalar is at the top but not as a value).
			nested := "k:\n" + indent(content)
			var doc yaml.Node
			if Check(nested) == nil && yaml.Unmarshal([]byte(nested), &doc) == nil {
				t.Fatalf("refused for depth, accepted one level deeper:\n%s", nested)
			}
		}
	})
}

func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}
