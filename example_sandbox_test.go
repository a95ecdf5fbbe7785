package castor_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/policy"
)

// ExampleWithSandbox runs an agent in yolo mode with its commands
// confined: written only beneath the workspace and the temporary
// directory, no network, credentials unread, .git read-only. Where no
// sandbox can be had, New fails rather than running them unconfined.
func ExampleWithSandbox() {
	a, err := castor.New(context.Background(),
		castor.WithApprovalMode(policy.ModeYolo),
		castor.WithSandbox(castor.Sandbox{Profile: "permissive-closed"}),
	)
	if errors.Is(err, castor.ErrSandboxUnavailable) {
		fmt.Println("no sandbox here:", err)
		return
	}
	if err != nil {
		panic(err)
	}
	defer a.Close()
	fmt.Println("commands run in", a.SandboxProfile())
	res, err := a.Send(context.Background(), "Build the project and run its tests")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Text)
}
