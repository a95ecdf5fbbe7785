// Package chats records conversations in Gemini CLI's on-disk session format
// and reads them back, so that a user can resume in Castor a session started
// in Gemini CLI and the other way round.
//
// # Where sessions live
//
// Every project (working directory) owns a temporary directory
// <geminiHome>/tmp/<slug>, where the slug is allocated in
// <geminiHome>/projects.json ({"projects": {"/abs/path": "slug"}}) and each
// claimed slug directory carries a .project_root marker naming its owner.
// [ProjectTempDir] allocates or looks up that directory exactly as Gemini CLI
// does, including the copy of a legacy sha256-named directory. Sessions are
// files in its chats/ subdirectory named
// session-<YYYY-MM-DDTHH-MM>-<first 8 chars of the session id>.jsonl.
//
// # File format
//
// A session file is JSON Lines. The first line is a header:
//
//	{"sessionId":"…","projectHash":"<sha256 of project root>","startTime":"…","lastUpdated":"…","kind":"main"}
//
// Every later line is one of
//
//   - a message record, recognised by its string "id": {"id", "timestamp",
//     "type": user|gemini|info|error|warning, "content", "displayContent"?,
//     and for gemini messages "thoughts", "tokens", "model", "toolCalls"?}.
//     A record whose id was seen before replaces that message in place; this
//     is how tool results and late token counts are attached to a model
//     message.
//   - {"$set": {…}}: a metadata patch (lastUpdated, summary, directories,
//     sessionId, memoryScratchpad, or a whole "messages" checkpoint).
//   - {"$rewindTo": "<message id>"}: drop that message and every later one.
//
// Readers ignore lines that do not parse, so a line cut short by a crash
// costs that line only. Files written by older Gemini CLI versions hold one
// JSON object (the whole conversation) and are read as well; resuming one
// continues into a sibling ".jsonl" file, as Gemini CLI does.
//
// # Castor's differences
//
// The file is created by the session's first record, so a session that
// never gets a prompt leaves none. A second session whose id shares its
// first 8 characters with another's in the same minute is named after its
// whole id. A session id is held by one process at a time, with a lock
// under chats/.claims (claim.go), and retention.go is the start-up
// clean-up of general.sessionRetention.
package chats
