package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

func main() {
	targets := flag.Bool("targets", false, "check issue 8's targets after the table")
	flag.Parse()
	rs, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(rs.rows) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark results on stdin")
		os.Exit(1)
	}
	write(os.Stdout, rs)
	if *targets {
		fmt.Fprintln(os.Stdout)
		writeTargets(os.Stdout, rs)
	}
}

// ours are the impl names of dubboroute's side.
var ours = map[string]bool{"dubboroute": true, "gray": true}

// sample is one implementation's measurements of one row (one value per run).
type sample struct {
	impl    string
	metrics map[string][]float64 // unit -> values
}

func (s *sample) median(unit string) (float64, bool) {
	v := s.metrics[unit]
	if len(v) == 0 {
		return 0, false
	}
	c := slices.Clone(v)
	sort.Float64s(c)
	if len(c)%2 == 1 {
		return c[len(c)/2], true
	}
	return (c[len(c)/2-1] + c[len(c)/2]) / 2, true
}

// row is one benchmark case at one n.
type row struct {
	name  string // "ChainRoute", "Rebuild change=join tag=fixed"
	n     int    // -1 without n=
	ours  *sample
	their *sample
}

type results struct {
	rows  []*row
	index map[string]*row
}

var procSuffix = regexp.MustCompile(`-\d+$`)

// parse reads benchmark result lines.
func parse(r io.Reader) (*results, error) {
	rs := &results{index: map[string]*row{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.ParseInt(f[1], 10, 64); err != nil {
			continue // e.g. a benchmark name echoed in a log line
		}
		name, impl, n := splitName(procSuffix.ReplaceAllString(strings.TrimPrefix(f[0], "Benchmark"), ""))
		key := name + "\x00" + strconv.Itoa(n)
		rw := rs.index[key]
		if rw == nil {
			rw = &row{name: name, n: n}
			rs.index[key] = rw
			rs.rows = append(rs.rows, rw)
		}
		side := &rw.their
		if ours[impl] {
			side = &rw.ours
		}
		if *side == nil {
			*side = &sample{impl: impl, metrics: map[string][]float64{}}
		} else if (*side).impl != impl {
			return nil, fmt.Errorf("%s n=%d: two implementations on one side (%s, %s)", name, n, (*side).impl, impl)
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad value %q: %w", f[0], f[i], err)
			}
			(*side).metrics[f[i+1]] = append((*side).metrics[f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading input: %w", err)
	}
	return rs, nil
}

// splitName splits "ChainRoute/impl=dubbogo/n=100" into the case name
// ("ChainRoute"), the impl ("dubbogo") and n (100; -1 when absent).
func splitName(s string) (name, impl string, n int) {
	parts := strings.Split(s, "/")
	n = -1
	keep := parts[:1]
	for _, p := range parts[1:] {
		switch {
		case strings.HasPrefix(p, "impl="):
			impl = strings.TrimPrefix(p, "impl=")
		case strings.HasPrefix(p, "n="):
			if v, err := strconv.Atoi(strings.TrimPrefix(p, "n=")); err == nil {
				n = v
				continue
			}
			keep = append(keep, p)
		default:
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " "), impl, n
}

func (rs *results) get(name string, n int) *row { return rs.index[name+"\x00"+strconv.Itoa(n)] }

// write prints the table and the custom metrics.
func write(w io.Writer, rs *results) {
	fmt.Fprintln(w, "| benchmark | n | dubboroute ns/op | allocs/op | dubbo-go ns/op | allocs/op | dubbo-go / dubboroute |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	var extra []string
	for _, r := range rs.rows {
		label := r.name
		if r.ours != nil && r.their != nil && (r.ours.impl != "dubboroute" || r.their.impl != "dubbogo") {
			label += " (" + r.ours.impl + " vs " + r.their.impl + ")"
		} else if r.ours != nil && r.ours.impl != "dubboroute" {
			label += " (" + r.ours.impl + ")"
		} else if r.their != nil && r.their.impl != "dubbogo" {
			label += " (" + r.their.impl + ")"
		}
		n := ""
		if r.n >= 0 {
			n = strconv.Itoa(r.n)
		}
		on, oa := cells(r.ours)
		tn, ta := cells(r.their)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", label, n, on, oa, tn, ta, ratioCell(r))
		for _, s := range []*sample{r.ours, r.their} {
			if s == nil {
				continue
			}
			var units []string
			for u := range s.metrics {
				if u != "ns/op" && u != "B/op" && u != "allocs/op" && u != "MB/s" {
					units = append(units, u)
				}
			}
			sort.Strings(units)
			for _, u := range units {
				v, _ := s.median(u)
				extra = append(extra, fmt.Sprintf("- %s n=%s %s: %s %s%s", r.name, n, s.impl, group(v), u, mib(u, v)))
			}
		}
	}
	if len(extra) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "Other metrics:")
		fmt.Fprintln(w)
		for _, e := range extra {
			fmt.Fprintln(w, e)
		}
	}
}

func mib(unit string, v float64) string {
	if strings.HasPrefix(unit, "B/") && v >= 1<<20 {
		return fmt.Sprintf(" (%.1f MiB)", v/(1<<20))
	}
	return ""
}

func cells(s *sample) (ns, allocs string) {
	if s == nil {
		return "-", "-"
	}
	ns, allocs = "-", "-"
	if v, ok := s.median("ns/op"); ok {
		ns = group(v)
	}
	if v, ok := s.median("allocs/op"); ok {
		allocs = group(v)
	}
	return ns, allocs
}

// ratio is their ns/op over ours (0, false when either is missing).
func (r *row) ratio() (float64, bool) {
	if r == nil || r.ours == nil || r.their == nil {
		return 0, false
	}
	o, ok1 := r.ours.median("ns/op")
	t, ok2 := r.their.median("ns/op")
	if !ok1 || !ok2 || o == 0 {
		return 0, false
	}
	return t / o, true
}

func ratioCell(r *row) string {
	v, ok := r.ratio()
	if !ok {
		return "-"
	}
	return formatRatio(v)
}

func formatRatio(v float64) string {
	switch {
	case v >= 100:
		return group(v) + "×"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + "×"
	default:
		return strconv.FormatFloat(v, 'f', 2, 64) + "×"
	}
}

// group formats v with thousands separators: integers as integers, values
// below 100 with one decimal (ns/op of fast benchmarks).
func group(v float64) string {
	if v < 100 && v != float64(int64(v)) {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// target is one of issue 8's targets, checked on the parsed results.
type target struct {
	desc  string
	check func(rs *results) (met bool, detail string, ok bool)
}

var targets = []target{
	{"chain route >= 1000x faster than dubbo-go at n=1000", func(rs *results) (bool, string, bool) {
		v, ok := rs.get("ChainRoute", 1000).ratio()
		return v >= 1000, "ratio " + formatRatio(v), ok
	}},
	{"0 allocs/op for ours at every n (ChainRoute, ConditionRoute, TagRoute, Pick)", func(rs *results) (bool, string, bool) {
		var bad []string
		seen := 0
		for _, r := range rs.rows {
			if r.ours == nil || !slices.Contains([]string{"ChainRoute", "ConditionRoute", "TagRoute", "Pick"}, r.name) {
				continue
			}
			a, ok := r.ours.median("allocs/op")
			if !ok {
				continue
			}
			seen++
			if a != 0 {
				bad = append(bad, fmt.Sprintf("%s n=%d: %s", r.name, r.n, group(a)))
			}
		}
		if len(bad) > 0 {
			return false, strings.Join(bad, "; "), true
		}
		return true, fmt.Sprintf("%d rows, all 0", seen), seen > 0
	}},
	{"ours at n=10000 within 2x of ours at n=10 (ChainRoute)", func(rs *results) (bool, string, bool) {
		return scaling(rs, "ChainRoute", 10, 10000, 2)
	}},
	{"pick >= 50x faster than dubbo-go's random at n=1000", func(rs *results) (bool, string, bool) {
		v, ok := rs.get("Pick", 1000).ratio()
		return v >= 50, "ratio " + formatRatio(v), ok
	}},
	{"rebuild linear in n: n=10000 at most 12x n=1000 (each Rebuild case, ours)", func(rs *results) (bool, string, bool) {
		met, found := true, false
		var details []string
		for _, r := range rs.rows {
			if !strings.HasPrefix(r.name, "Rebuild") || r.n != 10000 {
				continue
			}
			m, d, ok := scaling(rs, r.name, 1000, 10000, 12)
			if !ok {
				continue
			}
			found = true
			met = met && m
			details = append(details, strings.TrimPrefix(r.name, "Rebuild ")+": "+d)
		}
		return met, strings.Join(details, "; "), found
	}},
}

// scaling checks ours(name, hi) <= limit * ours(name, lo).
func scaling(rs *results, name string, lo, hi int, limit float64) (bool, string, bool) {
	a, b := rs.get(name, lo), rs.get(name, hi)
	if a == nil || b == nil || a.ours == nil || b.ours == nil {
		return false, "", false
	}
	x, ok1 := a.ours.median("ns/op")
	y, ok2 := b.ours.median("ns/op")
	if !ok1 || !ok2 || x == 0 {
		return false, "", false
	}
	return y <= limit*x, fmt.Sprintf("n=%d %s ns, n=%d %s ns: %s", lo, group(x), hi, group(y), formatRatio(y/x)), true
}

// writeTargets prints one line per target.
func writeTargets(w io.Writer, rs *results) {
	fmt.Fprintln(w, "Targets (issue 8):")
	fmt.Fprintln(w)
	for _, t := range targets {
		met, detail, ok := t.check(rs)
		status := "MET   "
		switch {
		case !ok:
			status, detail = "NO DATA", "benchmark rows missing"
		case !met:
			status = "MISSED"
		}
		fmt.Fprintf(w, "- %s %s: %s\n", status, t.desc, detail)
	}
}
