package temporal

// PlayBuild makes this process record and run turns as a build that knows engines up to
// engine, and returns the function that restores it: for the test of a rollback.
func PlayBuild(engine int) (restore func()) {
	old := knownEngine
	knownEngine = engine
	return func() { knownEngine = old }
}
