// Package discovered is a tool source beside MCP: the tools a project
// declares through a command of its own. At start-up the assembly runs
// tools.discoveryCommand in the project root; it prints JSON function
// declarations, each of which becomes a tool named discovered_tool_<name>.
// Calling one runs tools.callCommand with the declared name as its last
// argument and the call's arguments as JSON on stdin; what it prints on
// stdout is the result. This is Gemini CLI's ToolRegistry discovery and
// DiscoveredTool, with Castor's argument validation and policy.
package discovered
