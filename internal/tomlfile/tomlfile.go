// Package tomlfile decodes slimroute's TOML files strictly: syntax errors
// carry file and line, unknown keys are errors that name them.
package tomlfile

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"slimroute/internal/parseerr"
)

// maxBytes bounds a TOML file: the decoder keeps it whole, and slimroute's
// specs and settings are a few hundred bytes.
var maxBytes int64 = 16 << 20

// Decode reads r into v. known lists the valid keys for the error message.
func Decode(r io.Reader, file string, v any, known string) error {
	md, err := toml.NewDecoder(parseerr.Capped(r, file, maxBytes, "spec or settings file")).Decode(v)
	if pe := (*parseerr.Error)(nil); errors.As(err, &pe) && pe.Line == 0 {
		return err // the file is too long (parseerr.Capped)
	}
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line := pe.Position.Line
			if strings.Contains(pe.Message, `got '\n'`) && line > 1 {
				line-- // the newline that ends line N is reported on line N+1
			}
			return &parseerr.Error{File: file, Line: line, Msg: pe.Message}
		}
		if line, msg, ok := decodeError(err.Error()); ok {
			return &parseerr.Error{File: file, Line: line, Msg: msg}
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return fmt.Errorf("%s: unknown key %s; known keys: %s", file, strings.Join(keys, ", "), known)
	}
	return nil
}

// decodeError rewrites the decoder's "toml: line N (last key "K"): …" in
// the words of the file: the line, the key, and what kind of value it
// wants, not the Go types the decoder fills.
func decodeError(text string) (int, string, bool) {
	m := decodeErrorRE.FindStringSubmatch(text)
	if m == nil {
		return 0, "", false
	}
	line, _ := strconv.Atoi(m[1])
	key, what := m[2], m[3]
	switch {
	case strings.Contains(what, "expected table but found []"):
		return line, fmt.Sprintf("%s: want one table [%s], found an array of them ([[%s]])", key, key, key), true
	case strings.Contains(what, "expected table"):
		return line, fmt.Sprintf("%s: want a table ([%s] and keys under it), found a value", key, key), true
	case strings.HasPrefix(what, "incompatible types: TOML value has type "):
		var got, want string
		fmt.Sscanf(strings.ReplaceAll(strings.TrimPrefix(what, "incompatible types: TOML value has type "), ";", " "), "%s destination has type %s", &got, &want)
		return line, fmt.Sprintf("%s: want %s value, found %s", key, article(tomlType(want)), article(tomlType(got))), true
	}
	return line, fmt.Sprintf("%s: %s", key, what), true
}

var decodeErrorRE = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// tomlType names a type the decoder reports (TOML's or Go's) in TOML's
// words.
func tomlType(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "integer"
	case strings.HasPrefix(t, "float"):
		return "float"
	case t == "bool":
		return "boolean"
	case strings.HasPrefix(t, "[]"):
		return "array"
	case strings.HasPrefix(t, "map"), t == "struct":
		return "table"
	}
	return t
}

// article puts "a" or "an" before a TOML type name.
func article(t string) string {
	if t == "" {
		return "another"
	}
	if strings.ContainsRune("aeiou", rune(t[0])) {
		return "an " + t
	}
	return "a " + t
}
