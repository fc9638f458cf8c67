package consistenthash

import (
	"crypto/md5"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strconv"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

// Name is Java's extension name; DubboGoName is dubbo-go's.
const (
	Name        = "consistenthash"
	DubboGoName = "consistenthashing"
)

// DefaultNodes is Java's default hash.nodes.
const DefaultNodes = 160

// Ring is one consistent-hash selector: immutable, safe for concurrent use.
type Ring struct {
	points []uint32
	owner  []int32
	args   []int
	// Nodes and Arguments are the parameters the ring was built with.
	Nodes     int
	Arguments string
}

var commaSplit = regexp.MustCompile(`\s*[,]+\s*`)

// Params reads hash.nodes and hash.arguments for method from the first
// provider, as Java does, and returns problems for lint.
func Params(first weight.Params, method string) (nodes int, arguments string, args []int, problems []string) {
	nodes, arguments = DefaultNodes, "0"
	if v, ok := weight.MethodParam(first, method, "hash.nodes"); ok {
		if n, ok := weight.ParseInt(v); ok && n >= 4 {
			nodes = int(n)
		} else {
			problems = append(problems, fmt.Sprintf("hash.nodes %q: Java fails every call; %d used", v, DefaultNodes))
		}
	}
	if v, ok := weight.MethodParam(first, method, "hash.arguments"); ok {
		arguments = v
	}
	parts := commaSplit.Split(arguments, -1)
	for len(parts) > 0 && parts[len(parts)-1] == "" { // Java's split drops trailing empties
		parts = parts[:len(parts)-1]
	}
	for _, p := range parts {
		i, ok := weight.ParseInt(p)
		if !ok {
			problems = append(problems, fmt.Sprintf("hash.arguments %q: Java fails every call; \"0\" used", arguments))
			return nodes, "0", []int{0}, problems
		}
		args = append(args, int(i))
	}
	return nodes, arguments, args, problems
}

// NewRing builds the ring of addresses (Java's URL.getAddress of each
// provider, in list order) with nodes virtual nodes each and the argument
// indexes args.
func NewRing(addresses []string, nodes int, arguments string, args []int) *Ring {
	reps := nodes / 4
	type pt struct {
		p   uint32
		own int32
	}
	pts := make([]pt, 0, len(addresses)*reps*4)
	buf := make([]byte, 0, 64)
	for o, a := range addresses {
		for i := 0; i < reps; i++ {
			buf = strconv.AppendInt(append(buf[:0], a...), int64(i), 10)
			d := md5.Sum(buf)
			for h := 0; h < 4; h++ {
				pts = append(pts, pt{binary.LittleEndian.Uint32(d[4*h:]), int32(o)})
			}
		}
	}
	// Java's TreeMap.put: a later provider replaces an earlier one at the
	// same point. A stable sort keeps list order among equal points; keep
	// the last of each run.
	slices.SortStableFunc(pts, func(x, y pt) int {
		switch {
		case x.p < y.p:
			return -1
		case x.p > y.p:
			return 1
		}
		return 0
	})
	r := &Ring{Nodes: nodes, Arguments: arguments, args: args}
	r.points = make([]uint32, 0, len(pts))
	r.owner = make([]int32, 0, len(pts))
	for i, p := range pts {
		if i+1 < len(pts) && pts[i+1].p == p.p {
			continue
		}
		r.points = append(r.points, p.p)
		r.owner = append(r.owner, p.own)
	}
	return r
}

// Len is the number of points.
func (r *Ring) Len() int { return len(r.points) }

// ForPoint returns the provider index owning the first point >= h,
// wrapping to the first point.
func (r *Ring) ForPoint(h uint32) int {
	if len(r.points) == 0 {
		return 0
	}
	lo, hi := 0, len(r.points)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.points[m] < h {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(r.points) {
		lo = 0
	}
	return int(r.owner[lo])
}

// Pick returns the provider index for a call's arguments (the real
// arguments of a generic call).
func (r *Ring) Pick(args []any) int {
	var stack [128]byte
	key, ok := r.appendScalarKey(stack[:0], args)
	if !ok {
		key = r.AppendKey(nil, args)
	}
	d := md5.Sum(key)
	return r.ForPoint(binary.LittleEndian.Uint32(d[:4]))
}

// appendScalarKey is AppendKey when every selected argument is a scalar
// (ok false otherwise); it keeps buf on the caller's stack.
func (r *Ring) appendScalarKey(buf []byte, args []any) ([]byte, bool) {
	for _, i := range r.args {
		if i >= 0 && i < len(args) {
			var ok bool
			if buf, ok = appendScalar(buf, args[i]); !ok {
				return nil, false
			}
		}
	}
	return buf, true
}

// AppendKey appends the hash key Java builds from args: String.valueOf of
// each selected argument (index within range), concatenated.
func (r *Ring) AppendKey(buf []byte, args []any) []byte {
	for _, i := range r.args {
		if i >= 0 && i < len(args) {
			buf = AppendJava(buf, args[i])
		}
	}
	return buf
}

// Point is the ring point of a key (for explain and tests).
func Point(key string) uint32 {
	d := md5.Sum([]byte(key))
	return binary.LittleEndian.Uint32(d[:4])
}
