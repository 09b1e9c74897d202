package ibsimtest

import (
	"fmt"
	"os"
	"runtime"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeT records a fatal failure instead of failing the real test, so that a
// test can check that Start fails when it should. Cleanups go to the real
// test.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fakeT) Fatal(args ...any) {
	f.failed = true
	f.msg = fmt.Sprint(args...)
	runtime.Goexit()
}

func (f *fakeT) Helper() {}
