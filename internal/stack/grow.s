//go:build amd64 || arm64

#include "textflag.h"

// A function with a large frame: the prologue's stack check sends the
// call to runtime.morestack, which doubles the stack until the frame fits.
// The body writes nothing, so no page of the frame becomes resident.

// func growMain(): a frame just under MainSize.
TEXT ·growMain(SB), 0, $57344-0
	RET

// func Grow(): a frame of three quarters of Size.
TEXT ·Grow(SB), 0, $12288-0
	RET
