package kong

import (
	"net/netip"
	"strconv"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// This file writes the canonical JSON of the Gateway API values that the
// names hash, with the API server's defaults applied. Member names are
// written in sorted order by hand; the tests check every encoder against
// encoding/json.

func appendStringPtrMember[T ~string](dst []byte, key string, v *T) []byte {
	if v == nil {
		return dst
	}
	return appendString(appendKey(dst, key), *v)
}

func appendInt32PtrMember(dst []byte, key string, v *int32) []byte {
	if v == nil {
		return dst
	}
	return appendIntMember(dst, key, int64(*v))
}

// appendStrings appends a list of strings in their given order, or nothing
// when it is empty (an absent list and an empty one are the same object).
func appendStringsMember[T ~string](dst []byte, key string, list []T) []byte {
	if len(list) == 0 {
		return dst
	}
	dst = append(appendKey(dst, key), '[')
	for i, s := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, s)
	}
	return append(dst, ']')
}

// appendRouteInput appends the match hash input of one rule of a route:
// {"matches":[…],"name":…,"namespace":…,"rule":…}.
func appendRouteInput(dst []byte, namespace, name string, rule *gwv1.HTTPRouteRule) []byte {
	dst = append(dst, '{')
	dst = appendKey(dst, "matches")
	var matches []gwv1.HTTPRouteMatch
	if rule != nil {
		matches = rule.Matches
	}
	dst = appendMatches(dst, matches)
	dst = appendStringMember(dst, "name", name)
	dst = appendStringMember(dst, "namespace", namespace)
	if rule != nil {
		dst = appendStringPtrMember(dst, "rule", rule.Name)
	}
	return append(dst, '}')
}

// appendMatches appends the set of matches; no matches is the API
// server's default, one match of path prefix "/".
func appendMatches(dst []byte, matches []gwv1.HTTPRouteMatch) []byte {
	if len(matches) == 0 {
		return append(appendMatch(append(dst, '['), &gwv1.HTTPRouteMatch{}), ']')
	}
	var buf [16]span
	elems := buf[:0]
	start := len(dst)
	for i := range matches {
		from := len(dst)
		dst = appendMatch(dst, &matches[i])
		elems = append(elems, span{from, len(dst)})
	}
	return appendSet(dst, start, elems)
}

func appendMatch(dst []byte, m *gwv1.HTTPRouteMatch) []byte {
	dst = append(dst, '{')
	if len(m.Headers) > 0 {
		var buf [16]span
		elems := buf[:0]
		dst = appendKey(dst, "headers")
		start := len(dst)
		for i := range m.Headers {
			h := &m.Headers[i]
			from := len(dst)
			dst = appendNameTypeValue(dst, h.Name, h.Type, gwv1.HeaderMatchExact, h.Value)
			elems = append(elems, span{from, len(dst)})
		}
		dst = appendSet(dst, start, elems)
	}
	dst = appendStringPtrMember(dst, "method", m.Method)
	dst = appendKey(dst, "path")
	dst = append(dst, '{')
	typ, value := gwv1.PathMatchPathPrefix, "/"
	if m.Path != nil {
		if m.Path.Type != nil {
			typ = *m.Path.Type
		}
		if m.Path.Value != nil {
			value = *m.Path.Value
		}
	}
	dst = appendStringMember(dst, "type", typ)
	dst = appendStringMember(dst, "value", value)
	dst = append(dst, '}')
	if len(m.QueryParams) > 0 {
		var buf [16]span
		elems := buf[:0]
		dst = appendKey(dst, "queryParams")
		start := len(dst)
		for i := range m.QueryParams {
			q := &m.QueryParams[i]
			from := len(dst)
			dst = appendNameTypeValue(dst, q.Name, q.Type, gwv1.QueryParamMatchExact, q.Value)
			elems = append(elems, span{from, len(dst)})
		}
		dst = appendSet(dst, start, elems)
	}
	return append(dst, '}')
}

// appendNameTypeValue appends a header or query parameter match, whose
// type defaults to Exact.
func appendNameTypeValue[T ~string](dst []byte, name gwv1.HTTPHeaderName, typ *T, def T, value string) []byte {
	if typ != nil {
		def = *typ
	}
	dst = append(dst, '{')
	dst = appendStringMember(dst, "name", name)
	dst = appendStringMember(dst, "type", def)
	dst = appendStringMember(dst, "value", value)
	return append(dst, '}')
}

// appendBackendRefs appends the set of a rule's backend references.
func appendBackendRefs(dst []byte, namespace string, refs []gwv1.HTTPBackendRef) []byte {
	var buf [16]span
	elems := buf[:0]
	start := len(dst)
	for i := range refs {
		from := len(dst)
		dst = appendBackendRef(dst, namespace, &refs[i])
		elems = append(elems, span{from, len(dst)})
	}
	return appendSet(dst, start, elems)
}

// appendBackendRef appends a backend reference; its namespace defaults to
// the route's.
func appendBackendRef(dst []byte, namespace string, ref *gwv1.HTTPBackendRef) []byte {
	dst = append(dst, '{')
	if len(ref.Filters) > 0 {
		dst = appendKey(dst, "filters")
		dst = append(dst, '[')
		for i := range ref.Filters {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendFilter(dst, &ref.Filters[i])
		}
		dst = append(dst, ']')
	}
	dst = appendObjectRefMembers(dst, &ref.BackendObjectReference, namespace)
	weight := int32(1)
	if ref.Weight != nil {
		weight = *ref.Weight
	}
	dst = appendIntMember(dst, "weight", int64(weight))
	return append(dst, '}')
}

// appendObjectRefMembers appends the members of a backend object
// reference: group defaults to "" (core), kind to Service, namespace to
// the given one when that is not empty.
func appendObjectRefMembers(dst []byte, ref *gwv1.BackendObjectReference, namespace string) []byte {
	var group gwv1.Group
	if ref.Group != nil {
		group = *ref.Group
	}
	kind := gwv1.Kind("Service")
	if ref.Kind != nil {
		kind = *ref.Kind
	}
	dst = appendStringMember(dst, "group", group)
	dst = appendStringMember(dst, "kind", kind)
	dst = appendStringMember(dst, "name", ref.Name)
	if ref.Namespace != nil {
		dst = appendStringMember(dst, "namespace", *ref.Namespace)
	} else if namespace != "" {
		dst = appendStringMember(dst, "namespace", namespace)
	}
	return appendInt32PtrMember(dst, "port", ref.Port)
}

// appendTargetInput appends {"backendRef":…,"ip":…,"port":…}. An IP
// address is written in its canonical text form (net/netip), so that
// "::0001" and "::1" are one target.
func appendTargetInput(dst []byte, namespace string, ref *gwv1.HTTPBackendRef, ip string, port int32) []byte {
	dst = append(dst, '{')
	dst = appendKey(dst, "backendRef")
	if ref == nil {
		ref = &gwv1.HTTPBackendRef{}
	}
	dst = appendBackendRef(dst, namespace, ref)
	dst = appendKey(dst, "ip")
	if addr, err := netip.ParseAddr(ip); err == nil {
		// The text still needs escaping: an IPv6 zone may hold anything.
		var text [64]byte
		dst = appendString(dst, addr.AppendTo(text[:0]))
	} else {
		dst = appendString(dst, ip)
	}
	dst = appendIntMember(dst, "port", int64(port))
	return append(dst, '}')
}

// appendFilter appends a route filter. Lists inside a filter keep their
// order; no namespace is defaulted, as a filter is hashed without its route.
func appendFilter(dst []byte, f *gwv1.HTTPRouteFilter) []byte {
	dst = append(dst, '{')
	if c := f.CORS; c != nil {
		dst = append(appendKey(dst, "cors"), '{')
		if c.AllowCredentials != nil {
			dst = strconv.AppendBool(appendKey(dst, "allowCredentials"), *c.AllowCredentials)
		}
		dst = appendStringsMember(dst, "allowHeaders", c.AllowHeaders)
		dst = appendStringsMember(dst, "allowMethods", c.AllowMethods)
		dst = appendStringsMember(dst, "allowOrigins", c.AllowOrigins)
		dst = appendStringsMember(dst, "exposeHeaders", c.ExposeHeaders)
		maxAge := c.MaxAge
		if maxAge == 0 {
			maxAge = 5
		}
		dst = appendIntMember(dst, "maxAge", int64(maxAge))
		dst = append(dst, '}')
	}
	if r := f.ExtensionRef; r != nil {
		dst = append(appendKey(dst, "extensionRef"), '{')
		dst = appendStringMember(dst, "group", r.Group)
		dst = appendStringMember(dst, "kind", r.Kind)
		dst = appendStringMember(dst, "name", r.Name)
		dst = append(dst, '}')
	}
	if a := f.ExternalAuth; a != nil {
		dst = append(appendKey(dst, "externalAuth"), '{')
		dst = append(appendKey(dst, "backendRef"), '{')
		dst = appendObjectRefMembers(dst, &a.BackendRef, "")
		dst = append(dst, '}')
		if a.ForwardBody != nil {
			dst = append(appendKey(dst, "forwardBody"), '{')
			if a.ForwardBody.MaxSize != 0 {
				dst = appendIntMember(dst, "maxSize", int64(a.ForwardBody.MaxSize))
			}
			dst = append(dst, '}')
		}
		if a.GRPCAuthConfig != nil {
			dst = append(appendKey(dst, "grpc"), '{')
			dst = appendStringsMember(dst, "allowedHeaders", a.GRPCAuthConfig.AllowedRequestHeaders)
			dst = append(dst, '}')
		}
		if h := a.HTTPAuthConfig; h != nil {
			dst = append(appendKey(dst, "http"), '{')
			dst = appendStringsMember(dst, "allowedHeaders", h.AllowedRequestHeaders)
			dst = appendStringsMember(dst, "allowedResponseHeaders", h.AllowedResponseHeaders)
			if h.Path != "" {
				dst = appendStringMember(dst, "path", h.Path)
			}
			dst = append(dst, '}')
		}
		if a.ExternalAuthProtocol != "" {
			dst = appendStringMember(dst, "protocol", a.ExternalAuthProtocol)
		}
		dst = append(dst, '}')
	}
	if f.RequestHeaderModifier != nil {
		dst = appendHeaderFilter(appendKey(dst, "requestHeaderModifier"), f.RequestHeaderModifier)
	}
	if m := f.RequestMirror; m != nil {
		dst = append(appendKey(dst, "requestMirror"), '{')
		dst = append(appendKey(dst, "backendRef"), '{')
		dst = appendObjectRefMembers(dst, &m.BackendRef, "")
		dst = append(dst, '}')
		if m.Fraction != nil {
			dst = append(appendKey(dst, "fraction"), '{')
			denominator := int32(100)
			if m.Fraction.Denominator != nil {
				denominator = *m.Fraction.Denominator
			}
			dst = appendIntMember(dst, "denominator", int64(denominator))
			dst = appendIntMember(dst, "numerator", int64(m.Fraction.Numerator))
			dst = append(dst, '}')
		}
		dst = appendInt32PtrMember(dst, "percent", m.Percent)
		dst = append(dst, '}')
	}
	if r := f.RequestRedirect; r != nil {
		dst = append(appendKey(dst, "requestRedirect"), '{')
		dst = appendStringPtrMember(dst, "hostname", r.Hostname)
		dst = appendPathModifier(dst, r.Path)
		dst = appendInt32PtrMember(dst, "port", r.Port)
		dst = appendStringPtrMember(dst, "scheme", r.Scheme)
		code := 302
		if r.StatusCode != nil {
			code = *r.StatusCode
		}
		dst = appendIntMember(dst, "statusCode", int64(code))
		dst = append(dst, '}')
	}
	if f.ResponseHeaderModifier != nil {
		dst = appendHeaderFilter(appendKey(dst, "responseHeaderModifier"), f.ResponseHeaderModifier)
	}
	dst = appendStringMember(dst, "type", f.Type)
	if r := f.URLRewrite; r != nil {
		dst = append(appendKey(dst, "urlRewrite"), '{')
		dst = appendStringPtrMember(dst, "hostname", r.Hostname)
		dst = appendPathModifier(dst, r.Path)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

func appendHeaderFilter(dst []byte, f *gwv1.HTTPHeaderFilter) []byte {
	dst = append(dst, '{')
	dst = appendHeaders(dst, "add", f.Add)
	dst = appendStringsMember(dst, "remove", f.Remove)
	dst = appendHeaders(dst, "set", f.Set)
	return append(dst, '}')
}

func appendHeaders(dst []byte, key string, headers []gwv1.HTTPHeader) []byte {
	if len(headers) == 0 {
		return dst
	}
	dst = append(appendKey(dst, key), '[')
	for i := range headers {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '{')
		dst = appendStringMember(dst, "name", headers[i].Name)
		dst = appendStringMember(dst, "value", headers[i].Value)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

func appendPathModifier(dst []byte, p *gwv1.HTTPPathModifier) []byte {
	if p == nil {
		return dst
	}
	dst = append(appendKey(dst, "path"), '{')
	dst = appendStringPtrMember(dst, "replaceFullPath", p.ReplaceFullPath)
	dst = appendStringPtrMember(dst, "replacePrefixMatch", p.ReplacePrefixMatch)
	dst = appendStringMember(dst, "type", p.Type)
	return append(dst, '}')
}

// appendPluginInput appends {"config":…,"plugin":…}; config is omitted
// when it is empty, only white space or null (the API server drops a null
// configuration).
func appendPluginInput(dst []byte, plugin string, config []byte) ([]byte, error) {
	dst = append(dst, '{')
	if !isAbsentJSON(config) {
		var err error
		if dst, err = appendCanonicalJSON(appendKey(dst, "config"), config); err != nil {
			return dst, err
		}
	}
	dst = appendStringMember(dst, "plugin", plugin)
	return append(dst, '}'), nil
}

func isAbsentJSON(b []byte) bool {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	return i == j || string(b[i:j]) == "null"
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
