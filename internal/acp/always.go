package acp

import (
	"slices"

	sdk "github.com/coder/acp-go-sdk"
)

// onceOnly drops the allow_always options of a permission request, as
// Gemini CLI's ACP agent does under security.disableAlwaysAllow.
func onceOnly(opts []sdk.PermissionOption) []sdk.PermissionOption {
	return slices.DeleteFunc(slices.Clone(opts), func(o sdk.PermissionOption) bool {
		return o.Kind == sdk.PermissionOptionKindAllowAlways
	})
}
