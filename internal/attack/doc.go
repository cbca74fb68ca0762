// Package attack holds the attack tests that span packages: what a hostile model, MCP client or
// MCP server can do to a program built on wield, tried end to end through the public API.
package attack
