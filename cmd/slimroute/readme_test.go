package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeExitStatusNamesEveryVerdictCommand: every command whose help
// documents exit status 1 (a verdict) is named in README.md's "Exit
// status" paragraph, so the README does not say 1 is one command's alone.
func TestReadmeExitStatusNamesEveryVerdictCommand(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var para string
	for _, p := range strings.Split(string(b), "\n\n") {
		if strings.Contains(strings.Join(strings.Fields(p), " "), "Exit status:") {
			para = strings.Join(strings.Fields(p), " ")
		}
	}
	if para == "" {
		t.Fatal(`README.md has no paragraph with "Exit status:"`)
	}
	verdict := regexp.MustCompile(`Exit status:[^\n]*\b1 `)
	n := 0
	for _, path := range commands(nil, newApp(nil, nil).Commands) {
		out, err := runApp(t, append(path, "--help")...)
		if err != nil {
			t.Fatalf("%v --help: %v", path, err)
		}
		if !verdict.MatchString(out) {
			continue
		}
		n++
		if name := "`" + strings.Join(path, " ") + "`"; !strings.Contains(para, name) {
			t.Errorf("%s --help documents exit status 1; README.md's exit status paragraph does not name %s:\n%s", strings.Join(path, " "), name, para)
		}
	}
	if n == 0 {
		t.Fatal("no command documents exit status 1")
	}
}
