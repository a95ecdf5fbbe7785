// Package tui is Castor's interactive terminal: the face people meet when
// they run castor in a terminal. It asks internal/setup for a session,
// maps the engine's events (agent.Event) to a Bubble Tea program, and runs
// slash commands from the session's shared registry (package command).
//
// The program runs inline, not in the alternate screen: finished output
// (the user's prompts, finished Markdown blocks, tool calls, command
// results) is printed once above the live area and belongs to the
// terminal's own scrollback from then on, so scrolling, selecting and
// copying work as in any terminal and nothing is redrawn twice. The live
// area holds only what still changes: the unfinished tail of the answer
// being streamed, running tool calls, an approval dialog, the spinner, the
// input and the footer.
//
// The first frame is drawn before the session is assembled: settings,
// memory, MCP servers and the IDE connect in the background while the
// user starts typing, and a prompt sent before the session is ready waits
// for it.
//
// # Where things are
//
// MCP servers connect after the session is ready
// (setup.Options.MCPInBackground); mcpwait.go shows the servers awaited
// and holds prompts until setup.Agent.MCPReady. Lines are printed without
// glamour's padding (padding.go), tables at their cells' width
// (mdtable.go), and a terminal narrowed while the live area animates is
// cleared and its printed lines drawn again (reflow.go). Nothing is
// printed above the live area before Bubble Tea's first frame is on screen
// (frame.go watches the output for it). Confirmations are answered through
// setup.Options.Confirm, MCP servers' questions through a form (elicit.go).
// The terminal's own slash commands come in front of setup.Agent.Commands;
// those that change the running session use Session.Compress,
// Session.SetModel, Agent.ReloadMemory and Agent.ResumeChat.
package tui
