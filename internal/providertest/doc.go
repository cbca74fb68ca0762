// Package providertest is the test scaffolding the chat.Model implementations and embedders
// under provider/ share: reading recordings, the checks every model must pass on cancellation,
// early stops and panics in the caller's loop, the fault checks every embedder must pass
// (retries, error answers, cancellation, answers that are not one vector per text), the end-to-end
// check of an embedder behind a vector tool index, golden files, benchmarks against a baseline,
// and steady, the OpenAPI mock server that validates requests against a provider's published
// description. What a provider's answers must contain stays in the provider's own tests.
//
// Only tests import it.
package providertest
