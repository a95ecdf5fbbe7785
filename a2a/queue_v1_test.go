package a2a_test

import (
	"testing"
	"time"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// TestV1ReturnImmediately: A2A 1.0's SendMessage with returnImmediately
// answers at once, over both bindings, while the task's previous turn
// runs; the message runs after it.
func TestV1ReturnImmediately(t *testing.T) {
	for _, binding := range []v1.TransportProtocol{v1.TransportProtocolJSONRPC, v1.TransportProtocolHTTPJSON} {
		t.Run(string(binding), func(t *testing.T) {
			h := newHarness(t)
			c := v1Client(t, h, binding)
			h.fake.Enqueue(fakegemini.Hang())
			req := v1Text("hang", "", geminiSettings(h.ws))
			req.Config = &v1.SendMessageConfig{ReturnImmediately: true}
			res, err := c.SendMessage(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			id := res.(*v1.Task).ID
			h.waitModelCalls(1)
			type answer struct {
				res v1.SendMessageResult
				err error
			}
			got := make(chan answer, 1)
			go func() {
				req := v1Text("queued", string(id), nil)
				req.Config = &v1.SendMessageConfig{ReturnImmediately: true}
				r, err := c.SendMessage(t.Context(), req)
				got <- answer{r, err}
			}()
			var a answer
			select {
			case a = <-got:
			case <-time.After(guard):
				t.Fatal("SendMessage with returnImmediately waited for the previous turn")
			}
			if a.err != nil {
				t.Fatal(a.err)
			}
			task := a.res.(*v1.Task)
			if st := task.Status.State; st != v1.TaskStateWorking && st != v1.TaskStateSubmitted {
				t.Errorf("state %v", st)
			}
			if last := task.History[len(task.History)-1]; last.Parts[0].Text() != "queued" {
				t.Errorf("history ends with %+v", last)
			}
			if _, err := c.CancelTask(t.Context(), &v1.CancelTaskRequest{ID: id}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
