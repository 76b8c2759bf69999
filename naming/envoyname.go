package naming

import (
	"strconv"
	"strings"
)

// The Envoy-name rule (docs/krilint.md, "Rules"), written once here and used by krilint (over names
// and over names known only partly) and by anything else that hands names to Envoy.

// EnvoyRule is a rule of the Envoy-name check that an Envoy resource name can break.
type EnvoyRule uint8

const (
	// EnvoyColon: the name contains ':'. Envoy resource names must not.
	EnvoyColon EnvoyRule = iota + 1
	// EnvoyNotKRI: the name starts with "kri_" but is not (or cannot form) a KRI.
	EnvoyNotKRI
	// EnvoyLegacy: the name is neither a KRI, nor internal ("_…"), nor under an accepted prefix.
	// It is only reported in strict mode.
	EnvoyLegacy
	// EnvoyStatUnsafe: the name holds characters outside Envoy's stat-safe set, so that Envoy's
	// stats split it or rewrite it (docs/envoy-names.md). A warning: Envoy accepts the name.
	EnvoyStatUnsafe
)

func (r EnvoyRule) String() string {
	switch r {
	case EnvoyColon:
		return "colon"
	case EnvoyNotKRI:
		return "not-kri"
	case EnvoyLegacy:
		return "legacy"
	case EnvoyStatUnsafe:
		return "stat-unsafe"
	}
	return "EnvoyRule(" + strconv.Itoa(int(r)) + ")"
}

// Level is how a finding of the rule is reported: "error" for a name that must change (denied),
// "warning" for one Envoy accepts but handles badly.
func (r EnvoyRule) Level() string {
	if r == EnvoyStatUnsafe {
		return "warning"
	}
	return "error"
}

// DefaultEnvoyPrefixes returns the name prefixes Kuma uses for its own resources besides KRIs.
func DefaultEnvoyPrefixes() []string { return []string{"self_", "system_"} }

var defaultEnvoyPrefixes = DefaultEnvoyPrefixes()

// EnvoyNameOptions configures the Envoy-name rule.
type EnvoyNameOptions struct {
	// Strict reports legacy names too.
	Strict bool
	// Prefixes are accepted name prefixes. Nil means DefaultEnvoyPrefixes; an empty, non-nil
	// slice accepts no prefix.
	Prefixes []string
	// Registry knows the KRI types; nil means DefaultRegistry().
	Registry *Registry
}

func (o *EnvoyNameOptions) registry() *Registry {
	if o.Registry != nil {
		return o.Registry
	}
	return defaultRegistry()
}

func (o *EnvoyNameOptions) prefixes() []string {
	if o.Prefixes == nil {
		return defaultEnvoyPrefixes
	}
	return o.Prefixes
}

// ColonAt locates one ':' in a name or pattern: the index of the literal part (0 for a full name)
// and the byte offset inside it.
type ColonAt struct {
	Part, Offset int
}

// EnvoyNameProblem is one broken rule.
type EnvoyNameProblem struct {
	Rule EnvoyRule
	// Message says what is wrong, for humans; it starts in lower case and names no subject, so
	// callers can write "listener name "x" " + Message.
	Message string
	// Colons locates every ':' (Rule EnvoyColon only), so that a tool can offer to replace them.
	Colons []ColonAt
}

// PatternPart is one piece of a name known only partly: a literal, or a hole standing for any
// string (a formatting verb, a function argument, a value computed at run time).
type PatternPart struct {
	Lit  string
	Hole bool
}

// HolePart returns the PatternPart for an unknown piece.
func HolePart() PatternPart { return PatternPart{Hole: true} }

// Lit is the PatternPart for a known piece.
func Lit(s string) PatternPart { return PatternPart{Lit: s} }

const kriPrefix = Prefix + string(Separator)

// CheckEnvoyName checks a full Envoy resource name. It returns nil, without allocating, when the
// name breaks no rule.
func CheckEnvoyName(name string, o EnvoyNameOptions) []EnvoyNameProblem {
	var out []EnvoyNameProblem
	if strings.IndexByte(name, ':') >= 0 {
		out = append(out, colonProblem([]PatternPart{{Lit: name}}))
	}
	switch {
	case strings.HasPrefix(name, kriPrefix):
		if _, err := o.registry().Parse(name); err != nil {
			msg := err.Error()
			if pe, ok := err.(*ParseError); ok {
				msg = pe.Errs.ToAggregate().Error()
			}
			out = append(out, EnvoyNameProblem{Rule: EnvoyNotKRI, Message: `starts with "kri_" but is not a KRI: ` + msg})
		}
	case name == "" || name[0] == '_' || hasAnyPrefix(name, o.prefixes()):
	default:
		if o.Strict {
			out = append(out, legacyProblem(&o))
		}
	}
	return out
}

// CheckEnvoyPattern checks a name known only partly. Only what holds for every possible value of
// the holes is reported, so a pattern that some filling of its holes makes valid is never
// reported for the KRI rule, with one deliberate assumption: a hole is taken not to contain the
// separator '_' when the literal separators already make the seven KRI segments (a hole that did
// would make an eighth). When the literal parts hold fewer separators, holes may supply the rest
// and only the characters of the literal parts and the type segment, when it is complete, are
// checked. A ':' in any literal part is always reported. A pattern with no hole gives the same
// verdict as CheckEnvoyName over its concatenation.
func CheckEnvoyPattern(parts []PatternPart, o EnvoyNameOptions) []EnvoyNameProblem {
	holes := false
	for _, p := range parts {
		if p.Hole {
			holes = true
			break
		}
	}
	if !holes {
		return checkLiteralParts(parts, o)
	}
	var out []EnvoyNameProblem
	for _, p := range parts {
		if strings.IndexByte(p.Lit, ':') >= 0 {
			out = append(out, colonProblem(parts))
			break
		}
	}
	lead := leadingLiteral(parts)
	switch {
	case hasPrefixAcross(parts, kriPrefix):
		if msg := patternKRIProblem(parts, o.registry()); msg != "" {
			out = append(out, EnvoyNameProblem{Rule: EnvoyNotKRI, Message: `starts with "kri_" but cannot form a KRI: ` + msg})
		}
	case lead == 0:
		// Starts with a hole: any class of name is possible.
	case firstByte(parts) == '_' || hasPrefixAcrossAny(parts, o.prefixes()):
	case o.Strict && !couldStartWith(parts, lead, kriPrefix) && !couldStartWithAny(parts, lead, o.prefixes()):
		out = append(out, legacyProblem(&o))
	}
	return out
}

// checkLiteralParts checks a pattern without holes as the name it spells, mapping the offsets of
// ':' back to the parts.
func checkLiteralParts(parts []PatternPart, o EnvoyNameOptions) []EnvoyNameProblem {
	var name string
	if len(parts) == 1 {
		name = parts[0].Lit
	} else {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Lit)
		}
		name = b.String()
	}
	out := CheckEnvoyName(name, o)
	for i := range out {
		if out[i].Rule == EnvoyColon {
			out[i] = colonProblem(parts)
		}
	}
	return out
}

func colonProblem(parts []PatternPart) EnvoyNameProblem {
	var at []ColonAt
	for i, p := range parts {
		for j := 0; j < len(p.Lit); j++ {
			if p.Lit[j] == ':' {
				at = append(at, ColonAt{Part: i, Offset: j})
			}
		}
	}
	return EnvoyNameProblem{Rule: EnvoyColon, Message: "contains ':', which Envoy resource names must not (use '_')", Colons: at}
}

func legacyProblem(o *EnvoyNameOptions) EnvoyNameProblem {
	accepted := `"kri_…", "_…"`
	for _, p := range o.prefixes() {
		accepted += ", " + strconv.Quote(p+"…")
	}
	return EnvoyNameProblem{Rule: EnvoyLegacy, Message: "is a legacy name: not a KRI, not internal and not under an accepted prefix (" + accepted + ")"}
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// leadingLiteral is the number of literal bytes before the first hole.
func leadingLiteral(parts []PatternPart) int {
	n := 0
	for _, p := range parts {
		if p.Hole {
			break
		}
		n += len(p.Lit)
	}
	return n
}

func firstByte(parts []PatternPart) byte {
	for _, p := range parts {
		if p.Hole {
			return 0
		}
		if p.Lit != "" {
			return p.Lit[0]
		}
	}
	return 0
}

// hasPrefixAcross reports whether the literal run before the first hole starts with prefix.
func hasPrefixAcross(parts []PatternPart, prefix string) bool {
	if prefix == "" {
		return false
	}
	i := 0
	for _, p := range parts {
		if p.Hole {
			return false
		}
		for j := 0; j < len(p.Lit); j++ {
			if p.Lit[j] != prefix[i] {
				return false
			}
			i++
			if i == len(prefix) {
				return true
			}
		}
	}
	return false
}

func hasPrefixAcrossAny(parts []PatternPart, prefixes []string) bool {
	for _, p := range prefixes {
		if hasPrefixAcross(parts, p) {
			return true
		}
	}
	return false
}

// couldStartWith reports whether a pattern whose literal run is lead bytes long may still turn
// out to start with prefix once its first hole is filled.
func couldStartWith(parts []PatternPart, lead int, prefix string) bool {
	if prefix == "" || lead >= len(prefix) {
		return false
	}
	i := 0
	for _, p := range parts {
		if p.Hole {
			return true
		}
		for j := 0; j < len(p.Lit); j++ {
			if p.Lit[j] != prefix[i] {
				return false
			}
			i++
		}
	}
	return true
}

func couldStartWithAny(parts []PatternPart, lead int, prefixes []string) bool {
	for _, p := range prefixes {
		if couldStartWith(parts, lead, p) {
			return true
		}
	}
	return false
}

// patternProblem is one reason a pattern cannot form a KRI, kept as data so that the happy path
// builds no string.
type patternProblem struct {
	kind  uint8
	field Field
	c     byte
	n     int
	lit   string
}

const (
	ppSegments uint8 = iota + 1
	ppChar
	ppFirst
	ppLast
	ppTooLong
	ppRequired
	ppUnknownType
	ppMeshForbidden
	ppAnyChar
)

// patternKRIProblem checks a pattern that starts with the literal "kri_" and holds at least one
// hole. It returns "" when some filling of the holes forms a KRI.
func patternKRIProblem(parts []PatternPart, r *Registry) string {
	var probs [8]patternProblem
	n := 0
	add := func(p patternProblem) {
		if n < len(probs) {
			probs[n] = p
			n++
		}
	}
	seps := 0
	for _, p := range parts {
		seps += strings.Count(p.Lit, string(Separator))
	}
	switch {
	case seps+1 > Segments:
		add(patternProblem{kind: ppSegments, n: seps + 1})
	case seps+1 < Segments:
		// Holes may hold the missing separators: check only what every segment allows, and the
		// type segment when it is complete before the first hole.
		for _, p := range parts {
			for j := 0; j < len(p.Lit); j++ {
				c := p.Lit[j]
				if c != Separator && c != ':' && classOf[c] == 0 {
					add(patternProblem{kind: ppAnyChar, c: c})
				}
			}
		}
		if t, ok := completeTypeSegment(parts); ok {
			checkTypeLiteral(t, r, add)
		}
	default:
		walkSegments(parts, r, add)
	}
	if n == 0 {
		return ""
	}
	msgs := make([]string, 0, n)
	for _, p := range probs[:n] {
		msgs = append(msgs, p.String())
	}
	return strings.Join(msgs, "; ")
}

func (p patternProblem) String() string {
	path := Prefix + "." + p.field.String()
	switch p.kind {
	case ppSegments:
		return Prefix + ": has at least " + strconv.Itoa(p.n) + " '_'-separated segments, a KRI has exactly " + strconv.Itoa(Segments)
	case ppChar:
		return path + ": must contain only " + p.field.rule().charsText + " (found " + quoteByte(p.c) + ")"
	case ppFirst:
		return path + ": must start with " + p.field.rule().firstText + " (found " + quoteByte(p.c) + ")"
	case ppLast:
		return path + ": must end with " + p.field.rule().lastText + " (found " + quoteByte(p.c) + ")"
	case ppTooLong:
		return path + ": literal part is " + strconv.Itoa(p.n) + " bytes, longer than the field's " + strconv.Itoa(p.field.MaxLen())
	case ppRequired:
		return path + ": is required and empty"
	case ppUnknownType:
		return path + ": unknown resource type " + strconv.Quote(p.lit)
	case ppMeshForbidden:
		return path + ": must be empty for global-scoped type " + strconv.Quote(p.lit)
	case ppAnyChar:
		return Prefix + ": " + quoteByte(p.c) + " is allowed in no KRI field"
	}
	return Prefix + ": invalid"
}

// completeTypeSegment returns the type segment when it is all literal: "kri_<type>_" before the
// first hole.
func completeTypeSegment(parts []PatternPart) (string, bool) {
	if len(parts) == 0 || parts[0].Hole {
		return "", false
	}
	// The leading literal run is short and only read on this slower path.
	lead := parts[0].Lit
	for _, p := range parts[1:] {
		if p.Hole {
			break
		}
		lead += p.Lit
	}
	rest := lead[len(kriPrefix):]
	i := strings.IndexByte(rest, Separator)
	if i < 0 {
		return "", false
	}
	return rest[:i], true
}

func checkTypeLiteral(t string, r *Registry, add func(patternProblem)) (ResourceType, bool) {
	if t == "" {
		add(patternProblem{kind: ppRequired, field: FieldType})
		return ResourceType{}, false
	}
	if !FieldType.Valid(t) {
		for i := 0; i < len(t); i++ {
			if !FieldType.IsChar(t[i]) {
				add(patternProblem{kind: ppChar, field: FieldType, c: t[i]})
				break
			}
		}
		return ResourceType{}, false
	}
	rt, ok := r.ByShortName(t)
	if !ok {
		add(patternProblem{kind: ppUnknownType, field: FieldType, lit: t})
	}
	return rt, ok
}

// segment is what is known of one segment of a pattern with exactly seven literal segments.
type segment struct {
	holes      bool
	litLen     int
	first      byte // first byte when the segment starts with a literal
	firstLit   bool
	last       byte
	lastLit    bool
	empty      bool // no byte and no hole
	badChar    byte
	hasBadChar bool
	lit        string // the whole segment when it holds no hole and lies in one part
	litKnown   bool
}

// walkSegments checks a pattern whose literal separators make exactly seven segments.
func walkSegments(parts []PatternPart, r *Registry, add func(patternProblem)) {
	var segs [Segments]segment
	for i := range segs {
		segs[i].empty = true
	}
	k := 0
	// segStart remembers where the current segment began in its part, to keep a literal segment
	// as a substring without allocating.
	segPart, segOff := 0, 0
	startSeg := func(pi, off int) {
		segPart, segOff = pi, off
	}
	for pi, p := range parts {
		if p.Hole {
			s := &segs[k]
			s.holes = true
			s.empty = false
			s.lastLit = false
			continue
		}
		for j := 0; j < len(p.Lit); j++ {
			c := p.Lit[j]
			if c == Separator {
				s := &segs[k]
				if !s.holes && segPart == pi {
					s.lit, s.litKnown = p.Lit[segOff:j], true
				}
				k++
				startSeg(pi, j+1)
				continue
			}
			s := &segs[k]
			if s.empty {
				s.first, s.firstLit = c, true
			}
			s.empty = false
			s.last, s.lastLit = c, true
			s.litLen++
			if k > 0 && !Fields()[k-1].IsChar(c) && !s.hasBadChar {
				s.badChar, s.hasBadChar = c, true
			}
		}
	}
	if s := &segs[k]; !s.holes && segPart == len(parts)-1 && !parts[segPart].Hole {
		s.lit, s.litKnown = parts[segPart].Lit[segOff:], true
	}
	var rt ResourceType
	known := false
	for i := 1; i < Segments; i++ {
		s, f := &segs[i], Fields()[i-1]
		if f == FieldType && !s.holes && s.litKnown {
			rt, known = checkTypeLiteral(s.lit, r, add)
			continue
		}
		if s.empty {
			if f == FieldName || f == FieldType {
				add(patternProblem{kind: ppRequired, field: f})
			}
			if f == FieldMesh && known && rt.Scope == ScopeMesh {
				add(patternProblem{kind: ppRequired, field: f})
			}
			continue
		}
		if f == FieldMesh && known && rt.Scope == ScopeGlobal && s.litLen > 0 {
			add(patternProblem{kind: ppMeshForbidden, field: f, lit: rt.ShortName})
		}
		if s.hasBadChar {
			add(patternProblem{kind: ppChar, field: f, c: s.badChar})
		}
		if s.firstLit && !f.IsFirst(s.first) && f.IsChar(s.first) {
			add(patternProblem{kind: ppFirst, field: f, c: s.first})
		}
		if s.lastLit && !f.IsLast(s.last) && f.IsChar(s.last) {
			add(patternProblem{kind: ppLast, field: f, c: s.last})
		}
		if s.litLen > f.MaxLen() {
			add(patternProblem{kind: ppTooLong, field: f, n: s.litLen})
		}
	}
}
