package naming

import "testing"

func TestParseRelease(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		err      bool
	}{
		{"2.14", "2.14", false},
		{"v2.14", "2.14", false},
		{"2.14.3", "2.14", false},
		{"v2.14.0", "2.14", false},
		{"3.0", "3.0", false},
		{"v3.0.0-rc1", "3.0", false},
		{"2.13", "", true},
		{"", "", true},
		{"two", "", true},
	} {
		got, err := ParseRelease(tc.in)
		if (err != nil) != tc.err {
			t.Errorf("ParseRelease(%q) error = %v, want error %v", tc.in, err, tc.err)
			continue
		}
		if err == nil && got.String() != tc.want {
			t.Errorf("ParseRelease(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if (Release{}).String() != DefaultRelease.String() {
		t.Errorf("the zero Release is %s, want the default %s", Release{}, DefaultRelease)
	}
	for _, r := range Releases() {
		if p, err := ParseRelease(r.String()); err != nil || p != r {
			t.Errorf("ParseRelease(%s) = %v, %v; want the release itself", r, p, err)
		}
	}
}
