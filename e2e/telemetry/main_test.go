// Package telemetry_test runs castor with --telemetry against a real OTLP
// receiver (the OpenTelemetry Collector's, built from receiver/, a module
// of its own) and checks what arrives.
package telemetry_test

import (
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
