package transition

// MaxDead is the number of dead ends a Report spells out; DeadEnds counts
// them all.
const MaxDead = 32

// deadEnds collects the dead ends, each once per LID, in the order found.
type deadEnds struct {
	lid   int32
	seen  map[string]bool
	msgs  []string
	count int
}

// note records msg for lid unless it was noted for lid already.
func (d *deadEnds) note(lid int32, msg string) {
	if d.seen == nil || d.lid != lid {
		d.lid, d.seen = lid, map[string]bool{}
	}
	if d.seen[msg] {
		return
	}
	d.seen[msg] = true
	d.count++
	if len(d.msgs) < MaxDead {
		d.msgs = append(d.msgs, msg)
	}
}
