// Package agent is Castor's engine: a Session holds the curated history of
// one conversation and runs the turn loop (model call, tool scheduling,
// confirmations, loop detection, compression), reporting everything it does
// as a stream of Events that every face (CLI, A2A, IDE, ACP, SDK) renders in
// its own protocol.
//
// # Turns that end early
//
// A turn that ends early (the face stops ranging, ctx cancelled, the model
// failing or the stream cut mid-answer, max turns, loop detection, a hook's
// stop) leaves a history every next request can carry (ending.go): an
// answer cut short keeps the text it streamed as the model's turn (calls it
// had begun are dropped, none ran), unfinished calls are answered as
// cancelled where the turn stops, and the next prompt joins any user
// content left at the end, so roles alternate. New and SetHistory join
// consecutive user contents of a resumed or restored conversation the same
// way. TestEarlyEndingsKeepHistoryValid goes through every ending.
//
// # Paused calls across processes
//
// A turn paused for confirmations ends with the model response whose calls
// wait as the last content of the conversation, and Session.PausedCalls
// lists them. A new process hands both to Session.Continue (continue.go),
// which splits the paused response off, answers every other unanswered call
// as cancelled with the face's reason, and pauses on the response again
// through RestorePending (restore.go: the calls are prepared again, so that
// Pending, Answer and Resume work as before the restart), or, when the
// engine refuses, answers those calls as cancelled too. Several answers at
// once go through Session.AnswerAll and Decided (answer.go: unknown calls
// and outcomes skipped, modify_with_editor without content keeps the call
// waiting, resume once every call is decided).
//
// # Where hooks fire
//
// Hooks are an engine concern: Config.Hooks (the Hooks interface:
// Handles(event), Fire(ctx, *HookInput)) is called at the hook points in
// hooks.go and hookpoints.go, so every face gets them; internal/hooks reads
// and runs the definitions.
//
//   - SessionStart: setup.New after New (Session.StartHooks); its context
//     goes with the next prompt.
//   - SessionEnd: setup.Agent.Close, first of the closers (Session.EndHooks).
//   - BeforeAgent: Session.Send, before the prompt enters history.
//   - BeforeModel, BeforeToolSelection: run.callModel, once the request is
//     built.
//   - AfterModel: every streamed chunk (run.stream).
//   - BeforeTool: run.runBatch, after validation, before the policy.
//   - Notification: run.runBatch, when a call waits for approval.
//   - AfterTool: run.executeGroup, when a call has run.
//   - AfterAgent: run.loop, when the model answers without calling tools.
//   - PreCompress: run.maybeCompress, before every main-loop model call on
//     a history that is not empty (trigger auto), as Gemini CLI 0.61 fires
//     it on each compression attempt, threshold passed or not;
//     Session.Compress for /compress (trigger manual).
//
// Hook failures become EventWarning, systemMessages EventHookMessage; a
// halt (continue: false) ends the turn with TurnStopped, a deny of the turn
// with TurnBlocked.
//
// # Loops
//
// As in Gemini CLI 0.61, a prompt's loop is the same tool call, or cycle
// of up to five calls, five times in a row, or text chanted (loop.go), or, past its 30th model turn, what a
// model asked every 5 to 15 turns finds stuck (loopcheck.go, when
// Config.LoopCheck is set). The first loop of a prompt is told to the
// model with the next request (its looping calls answered as cancelled,
// its chanting dropped) and the prompt goes on; the second ends it with
// EventLoopDetected and ErrLoopDetected.
//
// # Models
//
// The engine asks for the model by the name it was given (auto, pro…; faces
// report it). The generation settings follow the model in use: the engine
// asks Config.GenerationConfigFor at each call, so Session.SetModel and a
// fallback give the new model its own thinking config; subagents use the
// same function. Calls a model.Model reports as model.NoticeUtility (the
// router's classifier) count under the role utility_router.
package agent
