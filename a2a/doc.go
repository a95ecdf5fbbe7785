// Package a2a serves a Castor agent over the Agent2Agent (A2A) protocol,
// 0.3.0 the way Gemini CLI's a2a-server does and 1.0 beside it, so that
// editors and other agents can drive it remotely.
//
// A Server is an http.Handler. It speaks:
//
//   - A2A 0.3.0 JSON-RPC at POST /: message/send, message/stream (SSE),
//     tasks/get, tasks/cancel, tasks/resubscribe and
//     tasks/pushNotificationConfig/{set,get,list,delete}, with the
//     standard error codes;
//   - the agent card at /.well-known/agent-card.json;
//   - the development-tool extension (ExtensionURI) when a request
//     activates it, with the X-A2A-Extensions header or metadata keyed by
//     the extension's URI: ToolCall, AgentThought and DevelopmentToolEvent
//     objects, ToolCallConfirmation answers and the commands/get and
//     command/execute methods;
//   - Gemini CLI's own wire format otherwise (metadata.coderAgent kinds,
//     tool-call data parts, {callId, outcome, newContent} confirmations),
//     so that today's Gemini Code Assist clients work unchanged, with
//     Gemini CLI's REST routes (POST /tasks, GET /tasks/metadata, GET
//     /tasks/{id}/metadata, GET /listCommands, POST /executeCommand) and
//     GET /tasks, GET /tasks/{id}, POST /tasks/{id}/execute and GET
//     /health.
//
// The same tasks are served over A2A 1.0 through a2a-go v2's transports
// (package a2asrv): JSON-RPC at POST / for requests with an A2A-Version:
// 1.0 header or a PascalCase method (SendMessage, GetTask, ListTasks,
// ...), and the HTTP+JSON binding under /a2a. The 0.3 JSON-RPC path stays
// hand-written: its wire (final on every turn's end only, artifacts
// always an array, no SSE ids) is what Gemini CLI's clients read, and
// a2a-go's 0.3 layer writes it otherwise.
//
// Every turn ends with exactly one event marked final: input-required
// when the agent answered or waits for a confirmation, so that the task
// stays open for the next message (the RFC's example ends a turn with
// completed, which A2A makes terminal: no message could continue the
// task); canceled after tasks/cancel; failed when the task could not run
// at all.
//
// A confirmation is answered by a new message on the same task; the
// engine holds the paused calls, so a client may close its connection
// between the two requests. Tasks, with their whole model conversation,
// are saved in a TaskStore (on disk, the file:// store of package
// a2a/blobstore) and continue after a restart. The server enforces an
// optional bearer token, body size, concurrency, per-task and wall-time
// limits.
//
// # Durable tasks
//
// The server saves a task as a message is accepted (the message, the task
// marked running), after each batch of tool calls (the conversation so
// far) and as the turn ends. Messages to a task whose turn runs queue in
// the task, in order (queue.go: one runner per busy task takes them one
// turn at a time; tasks/cancel and shutdown drop them, leaving them in the
// history). A turn paused for confirmations is saved with
// agent.Session.PausedCalls as StoredTask.Pending, which a new process
// hands to agent.Session.Continue; several answers in one client message
// go through Session.AnswerAll, the face only parsing its wire format.
//
// The blob store saves a task it knows as one journal line holding what
// changed (blobstore/journal.go: one append, no fsync, so kill -9 loses
// nothing saved) and folds the journal into the files in the background,
// fsyncing them, once the task settles; at shutdown the host saves its
// items and Close folds, side by side (blobstore/durable.go). A file store
// sweeps the temporary files a crash left when it opens (blobstore/sweep.go:
// all of them when no other process has the directory open, which a shared
// flock on the directory tells, else only hour-old ones). Listing tasks
// asks a store that implements TaskSummarizer for summaries (the blob
// store reads state.json and the journal after it, no index to go stale)
// and loads only the page it shows.
//
// Admission, the live set, retention, a client leaving (Config.OnDisconnect)
// and the order of a turn's end are internal/host's (hosting.go makes the
// task a host.Item), so that this package keeps only what is A2A: states,
// history, artifacts, rendering (task.go, render.go), push configs (the
// deliveries are internal/webhook's), elicitation questions to extension
// clients (elicit.go) and the 1.0 binding (v1.go implements
// a2asrv.RequestHandler).
package a2a
