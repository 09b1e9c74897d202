package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// stream builds a `go test -json` stream from events.
func stream(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func run(e ...event) []event { return e }

func TestPassingTestsShowOneLineEachAndPackageLinesStay(t *testing.T) {
	in := stream(t,
		event{Action: "start", Package: "m/a"},
		event{Action: "run", Package: "m/a", Test: "TestX"},
		event{Action: "output", Package: "m/a", Test: "TestX", Output: "=== RUN   TestX\n"},
		event{Action: "output", Package: "m/a", Test: "TestX", Output: "    x_test.go:9: chatter\n"},
		event{Action: "pass", Package: "m/a", Test: "TestX/sub", Elapsed: 0.5},
		event{Action: "pass", Package: "m/a", Test: "TestX", Elapsed: 1.25},
		event{Action: "skip", Package: "m/a", Test: "TestY"},
		event{Action: "output", Package: "m/a", Output: "PASS\n"},
		event{Action: "output", Package: "m/a", Output: "ok  \tm/a\t1.3s\n"},
		event{Action: "pass", Package: "m/a"},
		event{Action: "output", Package: "m/b", Output: "?   \tm/b\t[no test files]\n"},
		event{Action: "skip", Package: "m/b"},
	)
	var out strings.Builder
	failed, err := format(strings.NewReader(in), &out)
	if err != nil || failed {
		t.Fatalf("failed=%v err=%v", failed, err)
	}
	want := "    PASS a TestX (1.25s)\n    SKIP a TestY (0.00s)\nok  \tm/a\t1.3s\n?   \tm/b\t[no test files]\n"
	if out.String() != want {
		t.Errorf("output\n%s\nwant\n%s", out.String(), want)
	}
}

func TestFailuresShowTheirOutputAndFail(t *testing.T) {
	for name, events := range map[string][]event{
		"test": run(
			event{Action: "output", Package: "m/a", Test: "TestX/sub", Output: "    x_test.go:9: got 3, want 4\n"},
			event{Action: "fail", Package: "m/a", Test: "TestX/sub"},
			event{Action: "fail", Package: "m/a", Test: "TestX"},
			event{Action: "output", Package: "m/a", Output: "FAIL\tm/a\t0.1s\n"},
			event{Action: "fail", Package: "m/a"},
		),
		"crash": run(
			event{Action: "output", Package: "m/a", Test: "TestX", Output: "panic: x_test.go:9: got 3, want 4\n"},
			event{Action: "output", Package: "m/a", Output: "FAIL\tm/a\t0.1s\n"},
			event{Action: "fail", Package: "m/a"},
		),
		"build": run(
			event{Action: "build-output", ImportPath: "m/a [m/a.test]", Output: "a.go:1: x_test.go:9: got 3, want 4\n"},
			event{Action: "build-fail", ImportPath: "m/a [m/a.test]"},
			event{Action: "output", Package: "m/a", Output: "FAIL\tm/a [build failed]\n"},
		),
	} {
		t.Run(name, func(t *testing.T) {
			var out strings.Builder
			failed, err := format(strings.NewReader(stream(t, events...)), &out)
			if err != nil || !failed {
				t.Fatalf("failed=%v err=%v, want a failure", failed, err)
			}
			if !strings.Contains(out.String(), "x_test.go:9: got 3, want 4\n") || !strings.Contains(out.String(), "FAIL\tm/a") {
				t.Errorf("output does not show the failure and the FAIL line:\n%s", out.String())
			}
		})
	}
}

func TestNonJSONLinesArePassedThrough(t *testing.T) {
	var out strings.Builder
	if _, err := format(strings.NewReader("go: no such package\n"), &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "go: no such package\n" {
		t.Errorf("output %q", out.String())
	}
}
