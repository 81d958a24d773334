package fakeapitest

import (
	"testing"

	"github.com/informerlab/informerlab/e2e/controlplane/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
