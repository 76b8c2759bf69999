package main

import "testing"

func TestVetTool(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"-strict", "-prefixes=self_", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"./..."}, false},
		{[]string{"-json", "./cmd/..."}, false},
		{[]string{"-V=full"}, false},
		{nil, false},
	} {
		if got := vetTool(tt.args); got != tt.want {
			t.Errorf("vetTool(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
