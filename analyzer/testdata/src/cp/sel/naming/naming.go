// Package naming hands out the selector closures of Kuma's pkg/core/naming: a closure that returns
// its first argument or its second, chosen by the bool (or predicate) it was made with.
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
	default:
		return false
	}
}

func GetNameOrFallback[T boolOrFunc](pred T, name string, fallback string) string { // want GetNameOrFallback:`result "\{1\}" "\{2\}"`
	if eval(pred) {
		return name
	}
	return fallback
}

func GetNameOrFallbackFunc[T boolOrFunc](pred T) func(value string, fallback string) string { // want GetNameOrFallbackFunc:`returns func selecting 0 1 by outer 0, calling` GetNameOrFallbackFunc:`returns func with result "\{0\}" "\{1\}"`
	return func(name string, fallback string) string {
		return GetNameOrFallback(pred, name, fallback)
	}
}

// OrDefault returns a closure that chooses by its first argument: two calls need not agree.
func OrDefault() func(name, def string) string { // want OrDefault:`returns func with result "\{1\}" "\{0\}"`
	return func(name, def string) string {
		if name == "" {
			return def
		}
		return name
	}
}

var unifiedEverywhere bool

// ByGlobal returns a closure that chooses by a package variable, which may change between calls.
func ByGlobal() func(name, def string) string { // want ByGlobal:`returns func with result "\{0\}" "\{1\}"`
	return func(name, def string) string {
		if unifiedEverywhere {
			return name
		}
		return def
	}
}
