package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/internal/setup"
)

// An ACP session in a folder that folder trust does not trust runs in
// safe mode, as `gemini --acp` does: the folder's settings, hooks, MCP
// servers, commands, skills, agents and GEMINI.md are left out (the
// editor's own MCP servers still start). There is nobody to ask in the
// middle of the protocol, so the editor is told instead: in the
// session's first update, which editors show in the thread, and in the
// answer's _meta for those that read it.

// trustMetaKey is the _meta key of session/new, session/load and
// session/resume answers that says the folder is not trusted.
const trustMetaKey = "castor/folderTrust"

// untrustedHelp says how to trust the folder from outside the editor.
const untrustedHelp = "To trust it, open it with castor in a terminal and choose \"Trust folder\" " +
	"(or set it to TRUST_FOLDER in ~/.gemini/trustedFolders.json), then start a new session."

// untrusted reports whether the session runs without its folder's
// configuration.
func (ss *session) untrusted() bool {
	return !ss.a.Trusted && ss.a.Settings != nil && ss.a.Settings.Trust.FolderTrustEnabled
}

// trustMeta is the answer's _meta: nil for a trusted folder.
func (ss *session) trustMeta() map[string]any {
	if !ss.untrusted() {
		return nil
	}
	return map[string]any{trustMetaKey: map[string]any{"trusted": false, "folder": ss.root, "message": setup.UntrustedNotice(untrustedHelp)}}
}

// noteTrust tells the editor, as an agent message, that the folder's
// configuration is not applied.
func (ss *session) noteTrust(ctx context.Context) {
	if !ss.untrusted() {
		return
	}
	ss.send(ctx, sdk.SessionUpdate{AgentMessageChunk: &sdk.SessionUpdateAgentMessageChunk{Content: sdk.TextBlock(setup.UntrustedNotice(untrustedHelp) + "\n\n")}})
}
