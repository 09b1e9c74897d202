package fabric

import (
	"fmt"
	"strings"
)

// Width is the active width of a link in lanes (1x, 2x, 4x, 8x, 12x).
// Zero means unknown.
type Width uint8

// Link widths.
const (
	Width1x  Width = 1
	Width2x  Width = 2
	Width4x  Width = 4
	Width8x  Width = 8
	Width12x Width = 12
)

func (w Width) String() string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("%dx", int(w))
}

// Speed is the per-lane signalling rate of a link. Zero means unknown.
type Speed uint8

// Link speeds, in the order the InfiniBand generations introduced them.
const (
	SDR Speed = iota + 1
	DDR
	QDR
	FDR10
	FDR
	EDR
	HDR
	NDR
	XDR
)

var speedNames = [...]string{"", "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"}

func (s Speed) String() string {
	if int(s) < len(speedNames) {
		return speedNames[s]
	}
	return fmt.Sprintf("speed(%d)", int(s))
}

// Rate formats a width and speed as ibnetdiscover does ("4xEDR"); it is
// empty when either is unknown.
func Rate(w Width, s Speed) string {
	if w == 0 || s == 0 {
		return ""
	}
	return w.String() + s.String()
}

// ParseRate parses ibnetdiscover's "<width>x<speed>" token, e.g. "4xHDR".
func ParseRate(tok string) (Width, Speed, error) {
	i := strings.IndexByte(tok, 'x')
	if i <= 0 {
		return 0, 0, fmt.Errorf("invalid link rate %q: want <width>x<speed> such as 4xEDR", tok)
	}
	w, err := ParseWidth(tok[:i+1])
	if err != nil {
		return 0, 0, err
	}
	s, err := ParseSpeed(tok[i+1:])
	if err != nil {
		return 0, 0, err
	}
	return w, s, nil
}

// ParseWidth parses "1x", "2x", "4x", "8x" or "12x".
func ParseWidth(s string) (Width, error) {
	switch strings.ToLower(s) {
	case "1x":
		return Width1x, nil
	case "2x":
		return Width2x, nil
	case "4x":
		return Width4x, nil
	case "8x":
		return Width8x, nil
	case "12x":
		return Width12x, nil
	}
	return 0, fmt.Errorf("invalid link width %q: want 1x, 2x, 4x, 8x or 12x", s)
}

// ParseSpeed parses a speed name such as "EDR" (case-insensitive).
func ParseSpeed(s string) (Speed, error) {
	for i, n := range speedNames {
		if i > 0 && strings.EqualFold(n, s) {
			return Speed(i), nil
		}
	}
	return 0, fmt.Errorf("invalid link speed %q: want one of %s", s, strings.Join(speedNames[1:], ", "))
}
