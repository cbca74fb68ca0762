module github.com/wield-ai/wield

go 1.25.0

require (
	github.com/go-json-experiment/json v0.0.0-20251027170946-4849db3c2f7e
	github.com/google/jsonschema-go v0.4.3
	github.com/kljensen/snowball v0.10.0
)
