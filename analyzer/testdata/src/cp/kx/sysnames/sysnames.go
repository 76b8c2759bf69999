package sysnames

func GetNameOrDefault(predicate bool) func(name, defaultName string) string { // want GetNameOrDefault:`returns func selecting 0 1 by outer 0` GetNameOrDefault:`returns func with result "\{0\}" "\{1\}"`
	return func(name, defaultName string) string {
		if predicate {
			return name
		}
		return defaultName
	}
}
