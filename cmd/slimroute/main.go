// Command slimroute plans, checks and routes InfiniBand fabrics with
// low-diameter (Slim Fly) and Clos topologies. It parses flags and spec
// files, calls the library packages, and writes their results.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"slimroute/internal/atomicfile"
)

func main() {
	go removeTemporariesOnSignal()
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}

// removeTemporariesOnSignal waits for Ctrl-C or SIGTERM, then removes the
// temporary files of unfinished writes (no output is renamed into place
// after that) and exits with 128 + the signal's number, as a shell does.
func removeTemporariesOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	sig := (<-signals).(syscall.Signal)
	n := atomicfile.Abort()
	fmt.Fprintf(os.Stderr, "slimroute: %v: stopped; %d unfinished temporary files removed, no output is half-written\n", sig, n)
	os.Exit(128 + int(sig))
}

// indentRest keeps the first line of a multi-line error as the headline and
// indents the rest under it.
func indentRest(s string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:      "slimroute",
		Usage:     "plan, verify and route InfiniBand Slim Fly and Clos fabrics",
		Writer:    stdout,
		ErrWriter: stderr,
		// Errors are printed once, by main, as one line.
		ExitErrHandler:  func(*cli.Context, error) {},
		HideHelpCommand: true,
		Description: `Examples:
   slimroute demo -o out/            # the paper's q=5 Slim Fly: stats and every file format
   slimroute topo slimfly --q 5 --format ibsim -o sf5.net
   slimroute topo stats --slimfly 7`,
		Commands: []*cli.Command{topoCommand(), routeCommand(), pathCommand(), analyzeCommand(), verifyCommand(), fabricCheckCommand(), exportCommand(), placeCommand(), lftCommand(), cablingCommand(), demoCommand()},
	}
}
