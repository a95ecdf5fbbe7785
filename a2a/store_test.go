package a2a_test

import (
	"testing"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) a2a.TaskStore { return a2a.NewMemoryStore() })
}
