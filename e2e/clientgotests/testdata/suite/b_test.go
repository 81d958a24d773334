package suite

import "testing"

func TestInListedFile(t *testing.T) {}
