// Package sdkopts lets the SDK's public packages other than the root one
// (acp) turn a program's castor.Option values into the assembly's options,
// so that the root package need not export how an Option is made.
package sdkopts

import "github.com/castor-dev/castor/internal/setup"

// Resolve applies a []castor.Option, in order, to empty assembly options.
// Package castor sets it when it is initialised, which is before any
// package importing castor runs.
var Resolve func(opts any) setup.Options
