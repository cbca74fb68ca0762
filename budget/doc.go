// Package budget knows the size of a model request: a token estimate for every message, part and
// tool definition per provider family, corrected by the usage each response reports, and the
// context window and output limit of the models each provider serves.
//
// It is the measuring half of keeping a long turn inside its model's context window: advisors and
// loop hooks call [Estimator.Prompt] on the request they are about to send and compare it with
// [Limits.Budget]. Everything here is deterministic (no clock, no map-order dependence), so the
// same decisions come out in process and in a durable turn that replays them.
package budget
