package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/dubboroute/dubboroute/internal/outcome"
)

// Exit statuses.
const (
	ExitOK      = 0 // success, no finding
	ExitFail    = 1 // findings, or a failure (bad input, unreachable ZooKeeper, ...)
	ExitUsage   = 2 // bad command line
	programName = "dubboroute"
)

// Stdio is where a command reads and writes. Color enables ANSI colours in
// human output.
type Stdio struct {
	In    io.Reader
	Out   io.Writer
	Err   io.Writer
	Color bool
}

// ColorFor reports whether output to f should be coloured: f is a terminal
// (a character device), NO_COLOR is unset and TERM is not "dumb".
func ColorFor(f *os.File) bool {
	if _, ok := os.LookupEnv("NO_COLOR"); ok || os.Getenv("TERM") == "dumb" {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, io Stdio, args []string) int
}

func commands() []command {
	return []command{
		{"lint", "check condition, tag and gray rules; report findings with codes, lines and fix hints", runLint},
		{"route", "evaluate JSON routing cases (the batch contract shared with the Java oracle)", runRoute},
		{"explain", "show, router by router, why a call reaches the providers it reaches (files, or live ZooKeeper/Nacos)", runExplain},
		{"get", "print a rule stored in ZooKeeper or Nacos", runGet},
		{"push", "lint a rule and write it to ZooKeeper or Nacos where Dubbo Admin keeps it", runPush},
		{"rm", "delete a rule from ZooKeeper or Nacos", runRm},
		{"watch", "print every change of rules in ZooKeeper or Nacos as it happens, linted", runWatch},
	}
}

// Run executes the command line args (without the program name) and returns
// the exit status.
func Run(ctx context.Context, args []string, sio Stdio) (code int) {
	defer func() {
		// Last line of defence: a bug must not print a stack trace.
		if r := recover(); r != nil {
			fmt.Fprintf(sio.Err, "%s: internal error: %v\n", programName, r)
			code = ExitFail
		}
	}()
	if len(args) == 0 {
		usage(sio.Err)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 && args[0] == "help" {
			return Run(ctx, []string{args[1], "--help"}, sio)
		}
		usage(sio.Out)
		return ExitOK
	case "-version", "--version", "version":
		fmt.Fprintln(sio.Out, programName, "(module github.com/dubboroute/dubboroute)")
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == args[0] {
			return c.run(ctx, sio, args[1:])
		}
	}
	fmt.Fprintf(sio.Err, "%s: unknown command %q (run %s --help)\n", programName, args[0], programName)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s <command> [flags] [args]\n\nCommands:\n", programName)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "\nRun %s <command> --help for the flags of a command.\n", programName)
	fmt.Fprintf(w, "Exit status: 0 ok, 1 findings or failure, 2 usage error.\n")
}

// flagSet is a flag.FlagSet with the conventions of this CLI: --help prints
// the usage on stdout and exits 0; a bad flag prints one line and exits 2;
// flags may follow positional arguments.
type flagSet struct {
	*flag.FlagSet
	sio      Stdio
	synopsis string
	about    string
}

func newFlags(sio Stdio, name, synopsis, about string) *flagSet {
	fs := flag.NewFlagSet(programName+" "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, sio: sio, synopsis: synopsis, about: about}
}

func (f *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s %s\n\n%s\n", f.Name(), f.synopsis, strings.TrimSpace(f.about))
	var names []string
	f.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	if len(names) == 0 {
		return
	}
	sort.Strings(names)
	fmt.Fprintf(w, "\nFlags:\n")
	for _, n := range names {
		fl := f.Lookup(n)
		typ, help := flag.UnquoteUsage(fl)
		head := "--" + n
		if typ != "" {
			head += " " + typ
		}
		def := ""
		if fl.DefValue != "" && fl.DefValue != "false" && fl.DefValue != "0" && fl.DefValue != "[]" {
			def = fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		fmt.Fprintf(w, "  %-24s %s%s\n", head, help, def)
	}
}

// parse parses args, allowing flags after positional arguments. It returns
// the positional arguments, or an exit status when the command must stop.
func (f *flagSet) parse(args []string) ([]string, int, bool) {
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.printUsage(f.sio.Out)
			return nil, ExitOK, false
		}
		if err != nil {
			fmt.Fprintf(f.sio.Err, "%s: %v (run %s --help)\n", f.Name(), err, f.Name())
			return nil, ExitUsage, false
		}
		rest := f.Args()
		if len(rest) == 0 {
			return pos, 0, true
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), 0, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// usageErr prints a usage error and returns ExitUsage.
func (f *flagSet) usageErr(format string, a ...any) int {
	fmt.Fprintf(f.sio.Err, "%s: %s (run %s --help)\n", f.Name(), fmt.Sprintf(format, a...), f.Name())
	return ExitUsage
}

// fail prints a one-line error and returns ExitFail.
func fail(sio Stdio, cmd string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	fmt.Fprintf(sio.Err, "%s %s: %s\n", programName, cmd, msg)
	return ExitFail
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func paint(on bool, color, s string) string { return outcome.Paint(on, color, s) }
