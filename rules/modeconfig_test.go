package rules

import (
	"testing"

	"github.com/kriguard/kriguard/naming"
)

// TestForModeMadeOnce holds forMode to the Config of kuma.mode auto with the detected mode, made
// once for each release: the same Config for every request, judging under that mode against that
// release.
func TestForModeMadeOnce(t *testing.T) {
	c := DefaultConfig()
	if c.Mode() != ModeAuto {
		t.Fatalf("the default mode is %q, want auto", c.Mode())
	}
	for _, rel := range naming.Releases() {
		rc := c.forRelease(rel)
		for _, m := range []Mode{ModeGlobal, ModeZone, ModeStandalone} {
			mc := rc.forMode(m)
			if mc == rc || mc.Mode() != m || mc.release != rel || mc.registry != rc.registry {
				t.Fatalf("%v, %s: forMode gave mode %s, release %v", rel, m, mc.Mode(), mc.release)
			}
			if again := rc.forMode(m); again != mc {
				t.Errorf("%v, %s: forMode made another Config", rel, m)
			}
			if mc.forMode(ModeZone) != mc {
				t.Errorf("%v, %s: a Config of a set mode judged under another", rel, m)
			}
		}
		for _, m := range []Mode{"", ModeAuto} {
			if rc.forMode(m) != rc {
				t.Errorf("%v: forMode(%q) is not the Config itself", rel, m)
			}
		}
	}
}
