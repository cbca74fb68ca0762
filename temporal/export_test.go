package temporal

// NewerBuild returns cfg for a worker of a build newer than this one, which knows an engine
// this one does not: for the test of a rollback, whose workers of two builds share one process.
func NewerBuild(cfg Config) Config {
	cfg.engine = engineAgents + 1
	return cfg
}
