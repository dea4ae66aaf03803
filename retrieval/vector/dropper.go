package vector

// Dropper is implemented by a Store that can say how to drop one of its
// collections by hand. When the dense stage refuses a collection (it holds
// another corpus, or more documents than the corpus has), its error gives
// this command as the fix; without it the error states a generic one.
type Dropper interface {
	// DropCommand returns a command that drops collection c, such as
	// `psql -c 'DROP TABLE lasagna_…'`. It names no secret: credentials
	// come from the environment.
	DropCommand(c Collection) string
}
