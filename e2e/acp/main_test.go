package acp_test

import (
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
