// Package naming mirrors the shape of a control plane's name switch: a generic helper over a bool
// or a predicate, and a function returning a closure over it.
package naming

type boolOrFunc interface {
	bool | func() bool
}

func eval[T boolOrFunc](p T) bool {
	switch v := any(p).(type) {
	case bool:
		return v
	case func() bool:
		return v != nil && v()
	}
	return false
}

func GetNameOrFallback[T boolOrFunc](pred T, name, fallback string) string { // want GetNameOrFallback:`result "\{1\}" "\{2\}"`
	if eval(pred) {
		return name
	}
	return fallback
}

func GetNameOrFallbackFunc[T boolOrFunc](pred T) func(name, fallback string) string { // want GetNameOrFallbackFunc:`returns func selecting 0 1 by outer 0, calling` GetNameOrFallbackFunc:`returns func with result "\{0\}" "\{1\}"`
	return func(name, fallback string) string {
		return GetNameOrFallback(pred, name, fallback)
	}
}
