module github.com/wield-ai/wield

go 1.25.0

require github.com/kljensen/snowball v0.10.0
