package logcheck

// repair is --repair OUTPUT (to come).
func (c *checker) repair() int {
	c.errf("pmlogcheck: --repair: not implemented\n")
	return 1
}
