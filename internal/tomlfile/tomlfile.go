// Package tomlfile decodes slimroute's TOML files strictly: syntax errors
// carry file and line, unknown keys are errors that name them.
package tomlfile

import (
	"errors"
	"fmt"
	"io"
	"sort"
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
