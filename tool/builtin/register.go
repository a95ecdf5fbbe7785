package builtin

import "github.com/castor-dev/castor/tool"

// All returns every built-in tool, in the order Gemini CLI registers (and
// so declares) its core tools: update_topic, list_directory, read_file,
// search_file_content, glob, replace, smart_edit, write_file, web_fetch,
// read_many_files, run_shell_command, list_background_processes,
// read_background_output, save_memory, google_web_search, ask_user,
// write_todos, and with Env.Plan exit_plan_mode and enter_plan_mode.
// Gemini CLI registers either replace or smart_edit; both are offered
// here, the edit tool first, and callers that want only one drop the
// other.
func All(env *Env) []tool.Tool {
	all := []tool.Tool{
		NewUpdateTopic(env),
		NewListDirectory(env),
		NewReadFile(env),
		NewGrep(env),
		NewGlob(env),
		NewReplace(env),
		NewSmartEdit(env),
		NewWriteFile(env),
		NewWebFetch(env),
		NewReadManyFiles(env),
		NewShell(env),
		NewListBackgroundProcesses(env),
		NewReadBackgroundOutput(env),
		NewSaveMemory(env),
		NewWebSearch(env),
		NewAskUser(env),
		NewWriteTodos(env),
	}
	if env != nil && env.Plan != nil {
		all = append(all, NewExitPlanMode(env), NewEnterPlanMode(env))
	}
	return all
}
