package pipeline

import (
	"reflect"
	"strings"
	"testing"
)

// TestUnknownKeyListsEveryKey: a settings file with a misspelt key gets an
// error whose list of known keys holds every key Config reads (its toml
// tags), so that the advice can be followed for any of them.
func TestUnknownKeyListsEveryKey(t *testing.T) {
	_, err := ParseConfig(strings.NewReader("regrwo = true\n"), "s.toml")
	if err == nil {
		t.Fatal("a misspelt key was accepted")
	}
	msg := err.Error()
	_, list, ok := strings.Cut(msg, "known keys: ")
	if !ok {
		t.Fatalf("no list of known keys in %q", msg)
	}
	known := map[string]bool{}
	for _, k := range strings.Split(list, ", ") {
		known[k] = true
	}
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		tag := ct.Field(i).Tag.Get("toml")
		if tag != "" && tag != "-" && !known[tag] {
			t.Errorf("key %q is read but not listed in %q", tag, msg)
		}
	}
}

// TestRegrowIsOnUnlessTurnedOff: a settings file regrows the trees unless
// it says regrow = false (the plugin's default is the command line's).
func TestRegrowIsOnUnlessTurnedOff(t *testing.T) {
	for text, want := range map[string]bool{"": true, "seed = 2\n": true, "regrow = false\n": false, "regrow = true\n": true} {
		c, err := ParseConfig(strings.NewReader(text), "s.toml")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Regrow == nil || *c.Regrow; got != want {
			t.Errorf("%q: regrow %v, want %v", text, got, want)
		}
	}
}
