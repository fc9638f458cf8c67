package router

import (
	"regexp"
	"strings"
)

// StringMatch is Java Dubbo's StringMatch (the mesh rule's string match,
// which tag rules' parameter matches and configurators' match conditions
// use too): the first applicable field decides. Exact, Prefix, Regex and
// Wildcard apply to a present value only; Empty and Noempty also to an
// absent one (Java's null).
type StringMatch struct {
	Exact, Prefix, Regex, Noempty, Empty, Wildcard *string

	re *regexp.Regexp // Regex compiled by CompileRegex; nil if RE2 cannot compile it
}

// CompileRegex compiles Regex as Java's String.matches reads it (the whole
// value must match). It returns RE2's error for a regex it cannot compile
// (backreferences, lookaround, possessive or atomic groups); the match then
// throws where the regex is evaluated. Without Regex it does nothing.
func (m *StringMatch) CompileRegex() error {
	if m.Regex == nil {
		return nil
	}
	re, err := regexp.Compile(`^(?:` + *m.Regex + `)$`)
	m.re = re
	return err
}

// Match is Java's StringMatch.isMatch on v; present is false for Java's
// null. threw is true where Java throws: an evaluated Regex that did not
// compile (PatternSyntaxException).
func (m *StringMatch) Match(v string, present bool) (matched, threw bool) {
	switch {
	case m.Exact != nil && present:
		return v == *m.Exact, false
	case m.Prefix != nil && present:
		return strings.HasPrefix(v, *m.Prefix), false
	case m.Regex != nil && present:
		if m.re == nil {
			return false, true
		}
		return m.re.MatchString(v), false
	case m.Wildcard != nil && present:
		return v == *m.Wildcard || *m.Wildcard == "*", false
	case m.Empty != nil:
		return !present || v == "", false
	case m.Noempty != nil:
		return present && v != "", false
	}
	return false, false
}
