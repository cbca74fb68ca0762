package temporal

// PlayBuild returns cfg for a worker of a build that knows engines up to engine: for the test
// of a rollback, whose workers of two builds share one process.
func PlayBuild(cfg Config, engine int) Config {
	cfg.engine = engine
	return cfg
}
