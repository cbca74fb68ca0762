// Package sqlstore keeps conversations in SQL databases: a [memory.Repository] on SQLite (the
// embedded default, pure Go through modernc.org/sqlite) and on PostgreSQL (through pgx).
//
// Each message is stored whole, as the JSON of its [chat.Message] (tool calls, tool results,
// reasoning and content parts included), beside the columns that order and index it. Images,
// documents and audio are stored inline, base64 in that JSON, once per message that carries
// them; cap their size with [memory.MaxMessageBytes]. Rows written before messages had parts read
// back as text messages, so no data migration is needed. The schema is created or
// migrated when a store opens, under a lock, so several processes may open one database at once.
//
// Every write is one transaction that first locks the conversation's row, so concurrent
// [Store.Append] calls from goroutines or processes sharing the database never lose or interleave
// each other's messages, and a process killed in the middle of a write leaves the conversation as
// it was before that write. SQLite files are opened in WAL mode with a busy timeout and take the
// write lock when a transaction begins, so several processes can share one file too.
//
// [Store.Last] reads the end of a conversation through the primary key and a partial index of
// system messages, so a [memory.Window] costs the same over 50,000 messages as over 50.
// [ReadOnly] opens a store for programs that only look, without creating, migrating or writing
// anything, so that a read-only file or directory works.
//
// A [Store] is also a [memory.TurnRepository]: it keeps each conversation's open turn (the
// state of a turn stopped for approval or an interrupt, or recorded after a tool round) in one
// row whose steps are compared and swapped in a single statement, so a turn stopped in one
// process is resumed in another exactly once (memory.Turns makes the client's turn store of it).
// It is a [memory.CompactionRepository] too: what compaction replaced in a conversation (a cut
// tool result's full text, the messages a summary replaced) is kept in a table of its own, one
// row per id, so that the compacted form is what is sent and stored while the originals stay
// readable after a restart.
package sqlstore
