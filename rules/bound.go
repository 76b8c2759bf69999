package rules

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxValueBytes bounds the value a cause echoes. The API server lets long values through in
// annotations and loosely typed specs; a response should not carry them back several times.
const MaxValueBytes = 256

// MaxCauses is the most causes an answer shows, the last of them saying how many more problems
// there were ("… and 15,900 more") when the object has more: the webhook's denial and the
// command's results alike (docs/limits.md).
const MaxCauses = 100

// MaxFieldBytes bounds the field path of a finding: a map key may be megabytes long. A path is cut
// only when absurd: it is how a user finds the field.
const MaxFieldBytes = 4 << 10

// boundValues returns errs with string values longer than MaxValueBytes cut, saying how much was
// cut. errs itself is not modified.
func boundValues(errs field.ErrorList) field.ErrorList {
	var out field.ErrorList
	for i, fe := range errs {
		v, ok := fe.BadValue.(string)
		if !ok || len(v) <= MaxValueBytes {
			if out != nil {
				out = append(out, fe)
			}
			continue
		}
		if out == nil {
			out = append(make(field.ErrorList, 0, len(errs)), errs[:i]...)
		}
		c := *fe
		c.BadValue = BoundValue(v)
		out = append(out, &c)
	}
	if out == nil {
		return errs
	}
	return out
}

// BoundValue cuts v to MaxValueBytes, saying how long it was.
func BoundValue(v string) string {
	if len(v) <= MaxValueBytes {
		return v
	}
	return fmt.Sprintf("%s... (%d bytes in all)", strings.ToValidUTF8(v[:MaxValueBytes], ""), len(v))
}
