// Package providertest is the test scaffolding the chat.Model implementations and embedders
// under provider/ share: reading recordings, the public model kit (chat/modeltest) run on them
// (Conformance), the checks every model must pass on cancellation,
// early stops, cut streams, panics in the caller's loop and requests for native tool search it
// lacks, the fault tables of retries and error answers, the fault checks every embedder must
// pass (retries, error answers, cancellation, answers that are not one vector per text), the
// end-to-end check of an embedder behind a vector tool index, JSON comparisons of request bodies
// with recordings, golden files, benchmarks against a baseline, fake APIs for examples, and
// steady, the OpenAPI mock server that validates requests against a provider's published
// description. What a provider's answers must contain stays in the provider's own tests; the AWS
// scaffolding of the providers that reach Bedrock is in awstest.
//
// Only tests import it.
package providertest
