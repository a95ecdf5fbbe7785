package builtin

import "github.com/castor-dev/castor/tool"

// All returns every built-in tool, in the order Gemini CLI registers (and
// so declares) its core tools: list_directory, read_file,
// search_file_content, glob, replace, smart_edit, write_file, web_fetch,
// read_many_files, run_shell_command, save_memory, google_web_search,
// write_todos. Gemini CLI registers either replace or smart_edit; both are
// offered here, the edit tool first, and callers that want only one drop
// the other.
func All(env *Env) []tool.Tool {
	return []tool.Tool{
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
		NewSaveMemory(env),
		NewWebSearch(env),
		NewWriteTodos(env),
	}
}
