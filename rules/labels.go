package rules

import (
	"slices"
	"strings"

	"github.com/kriguard/kriguard/naming"
)

// labelSet is an object's metadata.labels as the rules read them: the labels as sent, each key
// once, and the values of the labels the rules and naming read by key (notedKeys), noted as the
// decode meets them, so that reading one neither hashes its key nor walks the labels
// (docs/performance.md, change 12). An object usually has a handful of labels: a map cost more to
// build and to read than the decode of the whole object's metadata.
//
// A labelSet is never changed once built but by set, while it is built: admitted objects are
// copied (cp := *obj) and their copies share it; with returns a changed copy.
type labelSet struct {
	pairs []labelPair
	// at[i] is 1 + the index in pairs of notedKeys[i], 0 when the object has no such label.
	at [numNoted]int32
	// unsorted says whether the keys are not in increasing order, as the API server writes them;
	// in order, a key greater than the last is not among them.
	unsorted bool
	// index finds a key among many pairs sent out of order (never from the API server, which
	// writes them sorted), so that no input costs a walk of the pairs per label.
	index map[string]int
	// buf holds the first pairs: most objects have no more, and need no allocation for them.
	buf [3]labelPair
}

type labelPair struct{ key, value string }

// The labels noted by key, their index in noted.
const (
	notedMesh = iota
	notedZone
	notedNamespace
	notedOrigin
	notedDisplayName
	numNoted
)

// notedKeys are the labels a labelSet notes: those ForObject, the KDS checks and the release's
// checks read of every object.
var notedKeys = [numNoted]string{naming.LabelMesh, naming.LabelZone, naming.LabelNamespace, labelOrigin, naming.LabelDisplayName}

// notedIndex returns the index in notedKeys of key, or -1. A switch compiles to a comparison of
// lengths and then of bytes: cheaper than a map's hash.
func notedIndex(key string) int {
	switch key {
	case naming.LabelMesh:
		return notedMesh
	case naming.LabelZone:
		return notedZone
	case naming.LabelNamespace:
		return notedNamespace
	case labelOrigin:
		return notedOrigin
	case naming.LabelDisplayName:
		return notedDisplayName
	}
	return -1
}

// notedIndexBytes is notedIndex of the bytes of key, without copying them to a string.
func notedIndexBytes(key []byte) int {
	switch string(key) {
	case naming.LabelMesh:
		return notedMesh
	case naming.LabelZone:
		return notedZone
	case naming.LabelNamespace:
		return notedNamespace
	case labelOrigin:
		return notedOrigin
	case naming.LabelDisplayName:
		return notedDisplayName
	}
	return -1
}

// pairsIndexed is how many pairs out of order a labelSet walks to find a key before it keeps an
// index of them.
const pairsIndexed = 16

// set sets key to value, while the set is built: a key sent again keeps its last value, as a map
// of the decoded JSON does.
func (l *labelSet) set(key, value string) { l.setNoted(key, value, notedIndex(key)) }

// setNoted is set, for a key whose notedIndex is n.
func (l *labelSet) setNoted(key, value string, n int) {
	i := len(l.pairs)
	if i > 0 && (l.unsorted || l.pairs[i-1].key >= key) { // maybe sent before
		i = l.find(key)
		l.unsorted = true
	}
	if i == len(l.pairs) {
		if l.pairs == nil {
			l.pairs = l.buf[:0]
		}
		l.pairs = append(l.pairs, labelPair{key, value})
		if l.index != nil {
			l.index[key] = i
		}
	} else {
		l.pairs[i].value = value
	}
	if n >= 0 {
		l.at[n] = int32(i) + 1
	}
}

// find returns the index of key's pair, or len(l.pairs).
func (l *labelSet) find(key string) int {
	if l.index == nil && len(l.pairs) > pairsIndexed {
		l.index = make(map[string]int, len(l.pairs))
		for i, p := range l.pairs {
			l.index[p.key] = i
		}
	}
	if l.index != nil {
		if i, ok := l.index[key]; ok {
			return i
		}
		return len(l.pairs)
	}
	for i, p := range l.pairs {
		if p.key == key {
			return i
		}
	}
	return len(l.pairs)
}

// noted returns the value of the noted label notedKeys[n], and whether the object has it.
func (l *labelSet) noted(n int) (string, bool) {
	if i := l.at[n]; i > 0 {
		return l.pairs[i-1].value, true
	}
	return "", false
}

// notedValue returns the value of the noted label notedKeys[n], "" when the object has none.
func (l *labelSet) notedValue(n int) string {
	v, _ := l.noted(n)
	return v
}

// get returns the value of label key, and whether the object has it.
func (l *labelSet) get(key string) (string, bool) {
	if n := notedIndex(key); n >= 0 {
		return l.noted(n)
	}
	if i := l.find(key); i < len(l.pairs) {
		return l.pairs[i].value, true
	}
	return "", false
}

// len returns how many labels the set holds.
func (l *labelSet) len() int { return len(l.pairs) }

// asMap returns the labels as a map, nil when there are none (or l is nil).
func (l *labelSet) asMap() map[string]string {
	if l == nil || len(l.pairs) == 0 {
		return nil
	}
	m := make(map[string]string, len(l.pairs))
	for _, p := range l.pairs {
		m[p.key] = p.value
	}
	return m
}

// with returns a copy of l where key is value.
func (l *labelSet) with(key, value string) labelSet {
	cp := labelSet{pairs: make([]labelPair, 0, len(l.pairs)+1)}
	for _, p := range l.pairs {
		cp.set(p.key, p.value)
	}
	cp.set(key, value)
	return cp
}

// labelsOf returns the labels of m, in the order of their keys: the pairs are taken from m in one
// allocation and sorted in place, without a slice of the keys to sort and a lookup of each
// (docs/performance.md, change 12).
func labelsOf(m map[string]string) labelSet {
	var l labelSet
	if len(m) == 0 {
		return l
	}
	l.pairs = make([]labelPair, 0, len(m))
	for k, v := range m {
		l.pairs = append(l.pairs, labelPair{k, v})
	}
	slices.SortFunc(l.pairs, func(a, b labelPair) int { return strings.Compare(a.key, b.key) })
	for i, p := range l.pairs {
		if n := notedIndex(p.key); n >= 0 {
			l.at[n] = int32(i) + 1
		}
	}
	return l
}
