package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/kriguard/kriguard/rules"
)

// The bounds of an answer (docs/limits.md).
const (
	// MaxCauses is the most causes one denial carries, the last of them saying how many more
	// problems there were ("… and 15,900 more") when the object has more: rules.MaxCauses, which
	// the command shows too.
	MaxCauses = rules.MaxCauses
	// MaxResponseBytes bounds the encoded AdmissionReview the webhook answers with, whatever
	// the object: causes and warnings are dropped (and counted) to stay under it.
	MaxResponseBytes = 64 << 10
	// maxWarnings is the most admission warnings one answer carries, the last one counting the
	// rest.
	maxWarnings = 20
	// maxFieldBytes and maxDetailBytes bound the field path and the detail of one cause; the
	// value is bounded by rules.MaxValueBytes. A path is cut only when absurd: it is how a user finds
	// the field. The rules cut the paths they build to the same length.
	maxFieldBytes  = rules.MaxFieldBytes
	maxDetailBytes = 512
	// logCauses is how many causes a log line shows; it also carries the count.
	logCauses = 3
)

// causesBudget and warningsBudget split MaxResponseBytes: every cause appears twice (in the
// message and in details.causes), and a few KiB stay for the envelope (uid, name, kind).
const (
	causesBudget   = 44 << 10
	warningsBudget = 12 << 10
)

// causeTypeMore is the type of the last cause of a capped denial.
const causeTypeMore = metav1.CauseType("TooManyProblems")

// invalid builds the 422 response the way the API server reports its own validation errors
// (apierrors.NewInvalid), capped: at most MaxCauses causes, the last one counting the problems
// left out, and at most causesBudget bytes of causes. Message and causes are built in one pass
// over the first causes; the rest are only counted.
func invalid(gk schema.GroupKind, name string, errs field.ErrorList) admission.Response {
	causes := make([]metav1.StatusCause, 0, min(len(errs), MaxCauses))
	var msg strings.Builder
	fmt.Fprintf(&msg, "%s %q is invalid", gk.String(), name)
	seen := make(map[string]bool, min(len(errs), MaxCauses))
	var body strings.Builder
	size, shown := 0, 0
	for i, fe := range errs {
		if i >= MaxCauses-1 && len(errs) > MaxCauses {
			break
		}
		c := boundCause(fe)
		text := c.Error()
		cost := 2*jsonLen(text) + 48 // in the message, and as field and body of a cause
		if size+cost > causesBudget && shown > 0 {
			break
		}
		size += cost
		shown++
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseType(c.Type), Message: c.ErrorBody(), Field: c.Field})
		if seen[text] { // the aggregate's message lists a repeated text once
			continue
		}
		seen[text] = true
		if body.Len() > 0 {
			body.WriteString(", ")
		}
		body.WriteString(text)
	}
	more := len(errs) - shown
	if more > 0 {
		m := "… and " + formatCount(more) + " more"
		causes = append(causes, metav1.StatusCause{Type: causeTypeMore, Message: m})
		body.WriteString(", ")
		body.WriteString(m)
	}
	switch {
	case len(errs) == 0:
	case len(seen) == 1 && more == 0:
		msg.WriteString(": ")
		msg.WriteString(body.String())
	default:
		msg.WriteString(": [")
		msg.WriteString(body.String())
		msg.WriteString("]")
	}
	st := metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Message: msg.String(),
		Details: &metav1.StatusDetails{Group: gk.Group, Kind: gk.Kind, Name: name, Causes: causes},
	}
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &st}}
}

// boundCause returns fe with its field, value and detail cut to their bounds.
func boundCause(fe *field.Error) *field.Error {
	v, isString := fe.BadValue.(string)
	if len(fe.Field) <= maxFieldBytes && len(fe.Detail) <= maxDetailBytes && (!isString || len(v) <= rules.MaxValueBytes) {
		return fe
	}
	c := *fe
	c.Field = boundString(fe.Field, maxFieldBytes)
	c.Detail = boundString(fe.Detail, maxDetailBytes)
	if isString {
		c.BadValue = rules.BoundValue(v)
	}
	return &c
}

// boundString cuts s to about n bytes, saying how long it was.
func boundString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "... (" + strconv.Itoa(len(s)) + " bytes in all)"
}

// summary is the causes of a decision for a log line: the count and the first few, built in
// one pass over those few (the aggregate's Error() is quadratic in the number of causes).
func summary(errs field.ErrorList) string {
	var b strings.Builder
	b.WriteString(formatCount(len(errs)))
	if len(errs) == 1 {
		b.WriteString(" problem: ")
	} else {
		b.WriteString(" problems: ")
	}
	for i, fe := range errs {
		if i == logCauses {
			b.WriteString("; … and " + formatCount(len(errs)-i) + " more")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(boundCause(fe).Error())
	}
	return b.String()
}

// boundWarnings caps warnings, followed by unbuilt more that were only counted, at maxWarnings
// and warningsBudget bytes, each cut to maxDetailBytes, the last one counting the warnings left
// out.
func boundWarnings(warnings []string, unbuilt int) []string {
	if len(warnings) == 0 {
		return warnings
	}
	total := len(warnings) + unbuilt
	out := make([]string, 0, min(total, maxWarnings))
	size := 0
	for i, w := range warnings {
		if i >= maxWarnings-1 && total > maxWarnings {
			break
		}
		w = boundString(w, maxDetailBytes)
		cost := jsonLen(w) + 4
		if size+cost > warningsBudget && len(out) > 0 {
			break
		}
		size += cost
		out = append(out, w)
	}
	if more := total - len(out); more > 0 {
		out = append(out, "… and "+formatCount(more)+" more warnings")
	}
	return out
}

// jsonLen is the length of s as a JSON string with encoding/json's escaping (HTML characters,
// control characters other than \b \f \n \r \t, invalid UTF-8 and U+2028/U+2029 take 6 bytes),
// without the quotes.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
				n += 2
			case c < 0x20 || c == '<' || c == '>' || c == '&':
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r == '\u2028', r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// formatCount writes n with thousands separators: 15900 is "15,900".
func formatCount(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	var b strings.Builder
	lead := len(s) % 3
	if lead > 0 {
		b.WriteString(s[:lead])
	}
	for i := lead; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}
