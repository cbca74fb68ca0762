// Package memory keeps conversations between calls: a [Repository] stores every message of a
// conversation, and the memory advisor loads and saves them around a client call.
package memory
