package lft

// rebuild returns a builder whose tables share t's contents; a reader
// replaces the part it reads (whole slices, never an element of t's).
func (t *Tables) rebuild() *Builder {
	c := *t
	return &Builder{t: &c}
}
