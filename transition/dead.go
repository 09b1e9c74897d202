package transition

// MaxDead is the number of dead ends a Report spells out; DeadEnds counts
// them all.
const MaxDead = 32

// deadEnds collects the dead ends, each once per LID, in the order found:
// the first MaxDead spelt out, all counted.
type deadEnds struct {
	lid   int32
	seen  map[string]bool
	first []deadEnd
	count int
}

// deadEnd is one dead end: its LID and what happens there.
type deadEnd struct {
	lid int32
	msg string
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
	if len(d.first) < MaxDead {
		d.first = append(d.first, deadEnd{lid, msg})
	}
}
