package fakegemini

import (
	"net/http"
	"strconv"
	"strings"
)

// RPCListModels is GET /v1beta/models, the Gemini API's models list.
const RPCListModels = "listModels"

// ListedModels are the models GET /v1beta/models answers with, as the
// Gemini API names them.
var ListedModels = []string{"models/gemini-2.5-pro", "models/gemini-2.5-flash", "models/gemini-2.5-flash-lite", "models/gemini-3-pro-preview", "models/text-embedding-004"}

// isModelsList reports the Gemini API's models list: a GET of
// /{version}/models, outside Code Assist.
func isModelsList(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/models") && !strings.Contains(r.URL.Path, "/v1internal")
}

// serveModelsList answers the models list as the API does, one page of
// at most pageSize (default 50) models with a nextPageToken for the
// rest, embedding models not offering generateContent; the request is
// recorded with RPC RPCListModels.
func (s *Server) serveModelsList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, &Request{HTTPMethod: r.Method, Path: r.URL.Path, Query: r.URL.Query(), RPC: RPCListModels, Header: r.Header.Clone()})
	s.mu.Unlock()
	if r.Header.Get("x-goog-api-key") == "" && r.URL.Query().Get("key") == "" && r.Header.Get("Authorization") == "" {
		writeError(w, http.StatusForbidden, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", nil)
		return
	}
	start := 0
	if tok := r.URL.Query().Get("pageToken"); tok != "" {
		for i, m := range ListedModels {
			if m == tok {
				start = i
			}
		}
	}
	size := 50
	if n, err := strconv.Atoi(r.URL.Query().Get("pageSize")); err == nil && n > 0 {
		size = n
	}
	end := min(start+size, len(ListedModels))
	var models []map[string]any
	for _, name := range ListedModels[start:end] {
		methods := []string{"generateContent", "countTokens"}
		if strings.Contains(name, "embedding") {
			methods = []string{"embedContent"}
		}
		models = append(models, map[string]any{"name": name, "displayName": strings.TrimPrefix(name, "models/"), "supportedGenerationMethods": methods, "inputTokenLimit": 1048576})
	}
	reply := map[string]any{"models": models}
	if end < len(ListedModels) {
		reply["nextPageToken"] = ListedModels[end]
	}
	writeJSON(w, http.StatusOK, reply)
}
