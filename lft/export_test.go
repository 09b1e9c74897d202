package lft

// WithoutCASL2VL returns t with every HCA port's SL-to-VL table the
// default (VL 0 for every SL), for tests.
func WithoutCASL2VL(t *Tables) *Tables {
	c := *t
	c.caRow, c.caVL = nil, nil
	return &c
}
