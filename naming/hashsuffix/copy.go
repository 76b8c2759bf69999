package hashsuffix

// Squats reports whether name is the copy name Kuma gives an object of its own base name in
// mesh with the given extra hash values: a name that holds the place of a copy to come (Kuma
// #10212). Only a base shorter than MaxBaseLen can be told: a longer display name was cut.
func Squats(name, mesh string, extra ...string) bool {
	base, _, ok := Split(name)
	return ok && len(base) < MaxBaseLen && Matches(name, mesh, base, extra...)
}
