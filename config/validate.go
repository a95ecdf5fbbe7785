package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// valueKind is the JSON type a setting must have.
type valueKind int

const (
	kindObject valueKind = iota
	kindString
	kindBool
	kindNumber
	kindStrings         // an array of strings
	kindStringOrStrings // a string or an array of strings
)

func (k valueKind) String() string {
	switch k {
	case kindObject:
		return "an object"
	case kindString:
		return "a string"
	case kindBool:
		return "a boolean"
	case kindNumber:
		return "a number"
	case kindStrings:
		return "an array of strings"
	}
	return "a string or an array of strings"
}

// settingsSchema are the types of the settings Castor reads, by key path:
// Gemini CLI 0.61 refuses to start ("Invalid configuration", exit 52)
// when one has a value of another type, and so does Castor. Keys not
// listed are not checked.
var settingsSchema = lazy.Value[map[string]valueKind]{New: func() map[string]valueKind {
	return map[string]valueKind{
		"general": kindObject, "output": kindObject, "ui": kindObject, "ide": kindObject,
		"privacy": kindObject, "telemetry": kindObject, "billing": kindObject, "model": kindObject,
		"modelConfigs": kindObject, "agents": kindObject, "context": kindObject, "tools": kindObject,
		"mcp": kindObject, "security": kindObject, "advanced": kindObject, "experimental": kindObject,
		"skills": kindObject, "hooksConfig": kindObject, "hooks": kindObject, "mcpServers": kindObject,
		"policyPaths": kindStrings, "adminPolicyPaths": kindStrings,

		"general.defaultApprovalMode":   kindString,
		"general.maxAttempts":           kindNumber,
		"general.preferredEditor":       kindString,
		"general.checkpointing":         kindObject,
		"general.checkpointing.enabled": kindBool,

		"model.name":                 kindString,
		"model.maxSessionTurns":      kindNumber,
		"model.compressionThreshold": kindNumber,
		"model.disableLoopDetection": kindBool,
		"model.skipNextSpeakerCheck": kindBool,

		"context.fileName":                            kindStringOrStrings,
		"context.includeDirectories":                  kindStrings,
		"context.loadMemoryFromIncludeDirectories":    kindBool,
		"context.includeDirectoryTree":                kindBool,
		"context.discoveryMaxDirs":                    kindNumber,
		"context.memoryBoundaryMarkers":               kindStrings,
		"context.importFormat":                        kindString,
		"context.fileFiltering":                       kindObject,
		"context.fileFiltering.respectGitIgnore":      kindBool,
		"context.fileFiltering.respectGeminiIgnore":   kindBool,
		"context.fileFiltering.customIgnoreFilePaths": kindStrings,

		"tools.core":                        kindStrings,
		"tools.allowed":                     kindStrings,
		"tools.exclude":                     kindStrings,
		"tools.useRipgrep":                  kindBool,
		"tools.truncateToolOutputThreshold": kindNumber,
		"tools.grepMaxMatches":              kindNumber,
		"a2a.store":                         kindString,
		"a2a.postgres.maxConns":             kindNumber,
		"a2a.postgres.leaseSeconds":         kindNumber,
		"tools.shell":                       kindObject,
		"tools.shell.inactivityTimeout":     kindNumber,

		"mcp.serverCommand": kindString,
		"mcp.allowed":       kindStrings,
		"mcp.excluded":      kindStrings,

		"security.auth":                kindObject,
		"security.auth.selectedType":   kindString,
		"security.auth.enforcedType":   kindString,
		"security.auth.useExternal":    kindBool,
		"security.folderTrust":         kindObject,
		"security.folderTrust.enabled": kindBool,
		"ide.enabled":                  kindBool,
		"experimental.jitContext":      kindBool,

		"security.enablePermanentToolApproval": kindBool,
		"security.ignorePolicyErrors":          kindBool,
		"security.disableYoloMode":             kindBool,
		"security.disableAlwaysAllow":          kindBool,

		"output.format":            kindString,
		"useWriteTodos":            kindBool,
		"advanced.excludedEnvVars": kindStrings,
		"advanced.ignoreLocalEnv":  kindBool,
	}
}}

// settingsEnums are the settings that take one of a few strings.
var settingsEnums = lazy.Value[map[string][]string]{New: func() map[string][]string {
	return map[string][]string{
		"general.defaultApprovalMode": {"default", "auto_edit", "autoEdit", "yolo", "plan"},
		"context.importFormat":        {"tree", "flat"},
		"general.preferredEditor":     PreferredEditors,
		"output.format":               {"text", "json"},
	}
}}

// InvalidSettingError is one setting with a value of the wrong type or
// outside its allowed values.
type InvalidSettingError struct {
	// Key is the setting's path, e.g. "model.name".
	Key string
	// Want says what was expected; Got is the value found, as JavaScript
	// would print it.
	Want, Got string
}

func (e *InvalidSettingError) Error() string {
	return fmt.Sprintf("%s: expected %s, got %s", e.Key, e.Want, e.Got)
}

// InvalidSettingsError lists the invalid settings of one file. Wrapped
// in a FileError, it reads "Error in <file>: Invalid configuration: ...".
type InvalidSettingsError struct {
	Problems []*InvalidSettingError
}

func (e *InvalidSettingsError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Error()
	}
	return "Invalid configuration: " + strings.Join(parts, "; ")
}

// validateSettings checks one settings file's values against
// settingsSchema and settingsEnums.
func validateSettings(obj map[string]any) error {
	var problems []*InvalidSettingError
	keys := make([]string, 0, len(settingsSchema.Get()))
	for k := range settingsSchema.Get() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		v, ok := lookupPathOK(obj, strings.Split(key, "."))
		// null means "not set", as in Gemini CLI's schema.
		if !ok || v == nil {
			continue
		}
		want := settingsSchema.Get()[key]
		if !kindMatches(want, v) {
			problems = append(problems, &InvalidSettingError{Key: key, Want: want.String(), Got: describeValue(v)})
			continue
		}
		if allowed, ok := settingsEnums.Get()[key]; ok {
			s, _ := v.(string)
			if !containsFold(allowed, s) {
				problems = append(problems, &InvalidSettingError{Key: key, Want: "one of " + strings.Join(allowed, ", "), Got: describeValue(v)})
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &InvalidSettingsError{Problems: problems}
}

func kindMatches(k valueKind, v any) bool {
	switch k {
	case kindObject:
		_, ok := v.(map[string]any)
		return ok
	case kindString:
		_, ok := v.(string)
		return ok
	case kindBool:
		_, ok := v.(bool)
		return ok
	case kindNumber:
		_, ok := v.(float64)
		return ok
	case kindStrings:
		return allStrings(v)
	}
	_, isStr := v.(string)
	return isStr || allStrings(v)
}

func allStrings(v any) bool {
	a, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range a {
		if _, ok := e.(string); !ok {
			return false
		}
	}
	return true
}

// describeValue names a value's type and shows it, e.g. `string "x"`.
func describeValue(v any) string {
	switch t := v.(type) {
	case string:
		return fmt.Sprintf("string %q", t)
	case bool:
		return fmt.Sprintf("boolean %v", t)
	case float64:
		return "number " + jsString(t)
	case []any:
		return "array " + jsString(t)
	case map[string]any:
		return "object"
	}
	return jsString(v)
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
