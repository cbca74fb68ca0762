module github.com/wield-ai/wield

go 1.25.0
