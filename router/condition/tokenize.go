package condition

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseV30Condition applies Java's ConditionStateRouter.init to one
// condition string: blank check, consumer./provider. removal, split at the
// first "=>", trim, "true"/"false" shortcuts, then tokenising each part.
// A disabled condition is parsed only for lint: Java never parses it.
func parseV30Condition(idx int, text string, line int, enabled bool, fs *[]Finding) (Condition, error) {
	c := Condition{Index: idx, Text: text, Line: line, Parsed: enabled}
	var local []Finding
	err := func() error {
		if javaTrim(text) == "" {
			return &ParseError{Index: idx, Condition: text, Line: line, Msg: "illegal route rule: blank condition"}
		}
		t := strings.ReplaceAll(strings.ReplaceAll(text, "consumer.", ""), "provider.", "")
		if t != text {
			local = append(local, Finding{Code: FindPrefixRemoved, Condition: idx, Line: line,
				Message: fmt.Sprintf("every \"consumer.\" and \"provider.\" is deleted, values included: the condition is read as %q", t)})
		}
		var whenText, thenText string
		hasWhen := false
		if i := strings.Index(t, "=>"); i >= 0 {
			whenText, thenText, hasWhen = javaTrim(t[:i]), javaTrim(t[i+2:]), true
		} else {
			thenText = javaTrim(t)
		}
		if hasWhen && !javaBlank(whenText) && whenText != "true" {
			p, err := parsePart(whenText, idx, line, true, &local)
			if err != nil {
				return wrapPartErr(err, idx, text, line, "when")
			}
			c.When = p
		}
		if javaBlank(thenText) || thenText == "false" {
			local = append(local, Finding{Code: FindBlacklist, Condition: idx, Line: line,
				Message: "then-part is blank or false: matching consumers get no provider at all (blacklist), whatever force says"})
			return nil
		}
		p, err := parsePart(thenText, idx, line, false, &local)
		if err != nil {
			return wrapPartErr(err, idx, text, line, "then")
		}
		if len(p.Terms) == 0 {
			local = append(local, Finding{Code: FindEmptyThen, Condition: idx, Line: line,
				Message: "then-part has no key: it matches no provider"})
		}
		c.Then = p
		return nil
	}()
	if err != nil {
		if !enabled {
			// Java does not parse conditions of a disabled rule.
			*fs = append(*fs, Finding{Code: FindDisabledUnparsable, Condition: idx, Line: line,
				Message: "condition would be rejected once the rule is enabled: " + err.Error()})
			c.When, c.Then = nil, nil
			return c, nil
		}
		return Condition{}, err
	}
	*fs = append(*fs, local...)
	return c, nil
}

type partError struct {
	pos int
	msg string
}

func (e *partError) Error() string { return e.msg }

func wrapPartErr(err error, idx int, text string, line int, which string) error {
	return &ParseError{Index: idx, Condition: text, Line: line, Msg: which + "-part: " + err.Error()}
}

// javaTrim is Java's String.trim: it strips chars <= U+0020 at both ends.
func javaTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
}

// javaBlank is Dubbo's StringUtils.isBlank: empty or Character.isWhitespace
// throughout.
func javaBlank(s string) bool {
	for _, r := range s {
		if !javaWhitespace(r) {
			return false
		}
	}
	return true
}

// javaWhitespace is Java's Character.isWhitespace.
func javaWhitespace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f:
		return true
	case 0xa0, 0x2007, 0x202f:
		return false
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

func isSep(c byte) bool { return c == '&' || c == '!' || c == '=' || c == ',' }

// isRegexSpace is \s of java.util.regex without UNICODE_CHARACTER_CLASS.
func isRegexSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// scanTokens reproduces repeated Matcher.find() of ([&!=,]*)\s*([^&!=,\s]+).
// A match at p exists exactly when a content char follows the separator run
// and the whitespace after it; otherwise every start up to the end of that
// whitespace fails too, so the scan resumes there (linear time).
func scanTokens(s string, f func(sep, content string, start int, skipped bool) error) error {
	p, prevEnd := 0, 0
	for p < len(s) {
		q := p
		for q < len(s) && isSep(s[q]) {
			q++
		}
		r := q
		for r < len(s) && isRegexSpace(s[r]) {
			r++
		}
		e := r
		for e < len(s) && !isSep(s[e]) && !isRegexSpace(s[e]) {
			e++
		}
		if e == r {
			if r > p {
				p = r
			} else {
				p++
			}
			continue
		}
		skipped := strings.TrimFunc(s[prevEnd:p], func(r rune) bool { return r < utf8.RuneSelf && isRegexSpace(byte(r)) }) != ""
		if err := f(s[p:q], s[r:e], p, skipped); err != nil {
			return err
		}
		prevEnd, p = e, e
	}
	return nil
}

type termBuild struct {
	key             string
	match, mismatch []string
}

// parsePart is Java's parseRule: it builds key -> {matches, mismatches}
// exactly as the HashMap-based original, including its quirks (a new key
// with the same name replaces the old entry; "," appends to the last set
// written, even one of a replaced entry).
func parsePart(s string, idx, line int, when bool, fs *[]Finding) (*Part, error) {
	byKey := map[string]*termBuild{}
	var order []*termBuild
	var cur *termBuild
	var values *[]string
	first := true
	add := func(set *[]string, v string) {
		for _, x := range *set {
			if x == v {
				return
			}
		}
		*set = append(*set, v)
	}
	note := func(code, msg string) {
		*fs = append(*fs, Finding{Code: code, Condition: idx, Line: line, Message: msg})
	}
	err := scanTokens(s, func(sep, content string, start int, skipped bool) error {
		if skipped {
			note(FindSkippedSeparator, fmt.Sprintf("separator characters before %q at index %d are ignored (e.g. \"a = = b\" reads as \"a = b\")", content, start))
		}
		switch sep {
		case "":
			if !first {
				note(FindWhitespaceSeparator, fmt.Sprintf("whitespace before %q starts a new key, like \"&\"", content))
			}
			if _, ok := byKey[content]; ok {
				note(FindKeyReplaced, fmt.Sprintf("key %q is restarted: its earlier values are dropped", content))
			}
			cur = &termBuild{key: content}
			byKey[content] = cur
			order = append(order, cur)
		case "&":
			if t, ok := byKey[content]; ok {
				cur = t
			} else {
				cur = &termBuild{key: content}
				byKey[content] = cur
				order = append(order, cur)
			}
		case "=", "!=":
			if cur == nil {
				return &partError{start, fmt.Sprintf("illegal route rule %q: the error char %q at index %d before %q (no key)", s, sep, start, content)}
			}
			if sep == "=" {
				values = &cur.match
			} else {
				values = &cur.mismatch
			}
			add(values, content)
		case ",":
			if values == nil || len(*values) == 0 {
				return &partError{start, fmt.Sprintf("illegal route rule %q: the error char %q at index %d before %q (no value to continue)", s, sep, start, content)}
			}
			add(values, content)
		default:
			return &partError{start, fmt.Sprintf("illegal route rule %q: the error char %q at index %d before %q (unknown separator)", s, sep, start, content)}
		}
		first = false
		return nil
	})
	if err != nil {
		return nil, err
	}
	p := &Part{Text: s}
	for _, t := range order {
		if byKey[t.key] != t {
			continue // replaced by a later entry of the same key
		}
		p.Terms = append(p.Terms, Term{Key: t.key, Match: t.match, Mismatch: t.mismatch})
	}
	for _, t := range p.Terms {
		lintTerm(t, idx, line, when, fs)
	}
	return p, nil
}
