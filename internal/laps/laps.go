// Package laps times the consecutive steps of a computation with a clock
// its caller passes in (time.Now, or a fake clock in tests), so that the
// computation itself reads no clock.
package laps

import "time"

// Lap is one step and the time it took (zero without a clock).
type Lap struct {
	Name string
	Time time.Duration
}

// Watch records laps; the zero Watch, or one with a nil clock, records
// their names with zero times.
type Watch struct {
	now  func() time.Time
	last time.Time
	list []Lap
}

// Start returns a watch whose first lap starts now.
func Start(now func() time.Time) *Watch {
	w := &Watch{now: now}
	if now != nil {
		w.last = now()
	}
	return w
}

// Lap ends the step called name.
func (w *Watch) Lap(name string) {
	var d time.Duration
	if w.now != nil {
		t := w.now()
		d, w.last = t.Sub(w.last), t
	}
	w.list = append(w.list, Lap{name, d})
}

// Laps returns the laps so far.
func (w *Watch) Laps() []Lap { return append([]Lap(nil), w.list...) }
