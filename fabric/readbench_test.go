package fabric_test

import (
	"bytes"
	"fmt"
	"testing"

	"slimroute/fabric"
	"slimroute/slimfly"
)

// BenchmarkReadJSON reads the JSON of Slim Flies q = 7, 13 and 19: the
// time per byte should stay flat as the file grows (the element lines
// were once counted from the file's start for each element: 1.5 s at
// q = 19, 30 s at q = 31).
func BenchmarkReadJSON(b *testing.B) {
	for _, q := range []int{7, 13, 19} {
		f, err := slimfly.Build(slimfly.Params{Q: q})
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := fabric.WriteJSON(&buf, f); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("q=%d", q), func(b *testing.B) {
			b.SetBytes(int64(buf.Len()))
			for b.Loop() {
				if _, err := fabric.ReadJSON(bytes.NewReader(buf.Bytes()), "sf.json"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
