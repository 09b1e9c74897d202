package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"
)

// Exit statuses: 0 done, 1 a verdict (cabling verify found wiring
// problems, verify found broken tables), 2 the command could not do what it
// was asked (bad input, a fabric it cannot route, a file it cannot write).
const exitFailed = 2

// run runs slimroute with args (args[0] is the program name) and returns the
// exit status. Errors are printed to stderr as one headline, details
// indented below it.
func run(args []string, stdout, stderr io.Writer) int {
	out := &trackedWriter{w: stdout}
	app := newApp(out, stderr)
	err := runArgs(app, args)
	var status exitStatus
	if out.err != nil && (err == nil || errors.As(err, &status)) {
		// a report that did not reach standard output (a full disk, a
		// closed pipe) is a failure, whatever the command found
		fmt.Fprintf(stderr, "slimroute: writing standard output: %v\n", out.err)
		return max(int(status), exitFailed)
	}
	if err == nil {
		return 0
	}
	if errors.As(err, &status) {
		return int(status) // the command said what it had to
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "slimroute") {
		msg = "slimroute: " + msg
	}
	fmt.Fprintln(stderr, indentRest(msg))
	return exitFailed
}

// runArgs runs app after putting args in the order urfave/cli parses (see
// normalizeArgs).
func runArgs(app *cli.App, args []string) error {
	prepareCommands(app.Commands, nil)
	args, err := normalizeArgs(app, args)
	if err != nil {
		return err
	}
	return app.Run(args)
}

// normalizeArgs turns `help CMD…` into `CMD… --help`, refuses unknown
// commands, and moves the flags of the command named in args before its
// positional arguments: urfave/cli stops parsing flags at the first
// positional argument, so `lft from-pcap lfts.pcap --slimfly 5` would see
// "--slimfly" as a second file name.
func normalizeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) < 2 {
		return args, nil
	}
	rest := args[1:]
	help := rest[0] == "help"
	if help {
		rest = rest[1:]
	}
	out := []string{args[0]}
	var cmd *cli.Command
	cmds := app.Commands
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		if rest[0] == "help" { // slimroute route help
			help = true
			break
		}
		next := findCommand(cmds, rest[0])
		if next == nil {
			if cmd == nil || (cmd.Action == nil && len(cmd.Subcommands) > 0) {
				return nil, unknownCommand(cmd, cmds, rest[0])
			}
			break // a positional argument of cmd
		}
		cmd, cmds = next, next.Subcommands
		out = append(out, rest[0])
		rest = rest[1:]
	}
	if help {
		return append(out, "--help"), nil
	}
	if cmd == nil {
		return append(out, rest...), nil
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if f := findFlag(cmd, name); f != nil && takesValue(f) && !hasValue && i+1 < len(rest) {
			i++
			flags = append(flags, rest[i])
		}
	}
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(append(out, "--"), positional...)
	}
	return out, nil
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func unknownCommand(parent *cli.Command, cmds []*cli.Command, name string) error {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.Name
	}
	where, help := "slimroute", "slimroute --help"
	if parent != nil {
		where = "slimroute " + parent.FullName()
		help = where + " --help"
	}
	return fmt.Errorf("%s: unknown command %q: want one of %s (%s explains each)", where, name, strings.Join(names, ", "), help)
}

func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

// prepareCommands gives every command of the tree slimroute's checks, in
// place of urfave/cli's own reactions (which print the whole help page):
// required flags, number ranges and positional arguments are checked in
// Before, and flag parse errors become one line naming the flag. path is
// the command names above cmds.
func prepareCommands(cmds []*cli.Command, path []string) {
	for _, c := range cmds {
		p := append(append([]string(nil), path...), c.Name)
		var required []cli.Flag
		for _, f := range c.Flags {
			if r, ok := f.(interface{ IsRequired() bool }); ok && r.IsRequired() {
				required = append(required, f)
				setNotRequired(f)
			}
		}
		c.HideHelpCommand = true // normalizeArgs turns `help` into --help
		c.Before = checkCommand(p, c, required)
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageError(p, c, err) }
		prepareCommands(c.Subcommands, p)
	}
}

// setNotRequired leaves the check of a required flag to checkCommand.
func setNotRequired(f cli.Flag) {
	switch f := f.(type) {
	case *cli.StringFlag:
		f.Required = false
		f.Usage += " (required)"
	case *cli.IntFlag:
		f.Required = false
		f.Usage += " (required)"
	}
}

func checkCommand(path []string, cmd *cli.Command, required []cli.Flag) cli.BeforeFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() && findCommand(cmd.Subcommands, c.Args().First()) != nil {
			return nil // a subcommand of a command that also acts (export slurm-topology) checks its own flags
		}
		for _, f := range required {
			if !c.IsSet(f.Names()[0]) {
				return fmt.Errorf("slimroute %s: missing %s (%s)", strings.Join(path, " "), spell(f), usageOf(f))
			}
		}
		if cmd.ArgsUsage == "" && (len(cmd.Subcommands) == 0 || cmd.Action != nil) && c.Args().Present() {
			return fmt.Errorf("slimroute %s: unexpected argument %q: it takes no arguments, only flags (name files with their flag, e.g. -o FILE; slimroute %s --help lists them)",
				strings.Join(path, " "), c.Args().First(), strings.Join(path, " "))
		}
		return checkNumbers(path, cmd, c)
	}
}

// spell writes a flag the way a user types it: --output (-o) DIR.
func spell(f cli.Flag) string {
	names := f.Names()
	s := "--" + names[0]
	for _, a := range names[1:] {
		if len(a) == 1 {
			s += " (-" + a + ")"
		}
	}
	if takesValue(f) {
		if p := placeholder(f); p != "" {
			s += " " + p
		}
	}
	return s
}

// placeholder is the `NAME` quoted in a flag's usage, as help shows it.
func placeholder(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		if _, rest, ok := strings.Cut(d.GetUsage(), "`"); ok {
			name, _, _ := strings.Cut(rest, "`")
			return name
		}
	}
	return ""
}

func usageOf(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return strings.ReplaceAll(strings.TrimSuffix(d.GetUsage(), " (required)"), "`", "")
	}
	return ""
}

var (
	badValue   = regexp.MustCompile(`^invalid value "(.*)" for flag -+([^:]+): (.*)$`)
	undefined  = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	needsValue = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
)

// usageError rewrites a flag parse error of command path as one line that
// names the flag and what it accepts.
func usageError(path []string, cmd *cli.Command, err error) error {
	where := "slimroute " + strings.Join(path, " ")
	msg := err.Error()
	if m := badValue.FindStringSubmatch(msg); m != nil {
		f := findFlag(cmd, m[2])
		want := "see " + where + " --help"
		if r, ok := rangeOf(path, f); ok {
			want = "want " + r.want
		} else if f != nil {
			want = usageOf(f)
		}
		reason := "not a number"
		if _, unsigned := f.(*cli.Uint64Flag); unsigned {
			reason = "not an unsigned integer (0..18446744073709551615)"
		}
		if strings.Contains(m[3], "out of range") {
			reason = "out of range"
		}
		return fmt.Errorf("%s: --%s %s: %s; %s", where, m[2], m[1], reason, want)
	}
	if m := undefined.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s: unknown flag -%s (%s --help lists the flags)", where, m[1], where)
	}
	if m := needsValue.FindStringSubmatch(msg); m != nil {
		if f := findFlag(cmd, m[1]); f != nil {
			return fmt.Errorf("%s: %s needs a value (%s)", where, spell(f), usageOf(f))
		}
	}
	return fmt.Errorf("%s: %v (%s --help explains the flags)", where, err, where)
}

// trackedWriter passes writes on to w and keeps the first error.
type trackedWriter struct {
	w   io.Writer
	err error
}

func (t *trackedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}
