package rules

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Peers are the existing objects an admission compares a request's object with, for the rules
// across objects (docs/unique.md): what a webhook reads through its cache. Every method may fail
// with an error wrapping ErrPeersUnknown when the cache cannot answer (not synced yet, unreachable,
// over its bound): the request is then admitted with a note that says why, never denied.
type Peers interface {
	// KongSNIs returns the KongSNIs whose spec.name is sni, as JSON.
	KongSNIs(ctx context.Context, sni string) ([][]byte, error)
	// KongCertificate returns the KongCertificate namespace/name as JSON, or nil when there is
	// none.
	KongCertificate(ctx context.Context, namespace, name string) ([]byte, error)
}

// ErrPeersUnknown is wrapped by the errors of Peers that cannot answer.
var ErrPeersUnknown = errors.New("existing objects unknown")

// peersPath is where a note about the comparison with existing objects is reported.
var peersPath = field.NewPath("metadata", "name")

// acrossAdmitted compares the object of r, admitted as obj, with its peers: a KongSNI with the
// KongSNIs of its spec.name whose certificates share its certificate's control plane. It returns
// the clashes as errors, and as a note why no comparison could be made.
func (c *Config) acrossAdmitted(ctx context.Context, gk schema.GroupKind, r *Request, obj *admitted, errs, notes field.ErrorList) (field.ErrorList, field.ErrorList) {
	if r.Peers == nil || gk != kongSNIGK || obj.name == "" {
		return errs, notes
	}
	clashes, err := c.sniClashes(ctx, r.Peers, r.Object, obj)
	if err != nil {
		e := field.Invalid(peersPath, obj.name, fmt.Sprintf("not compared with the existing KongSNIs and KongCertificates, so a KongSNI of the same name on the same control plane would go unnoticed: %v", err))
		e.Origin = string(RuleKongSNIUnique)
		return errs, append(notes, e)
	}
	for _, cl := range clashes {
		errs = append(errs, cl.Problem)
	}
	return errs, notes
}

// sniClashes returns the clashes of the KongSNI raw (decoded as obj) with the existing ones.
func (c *Config) sniClashes(ctx context.Context, peers Peers, raw []byte, obj *admitted) ([]Clash, error) {
	sni := stringAt(obj, "spec", "name")
	cert := stringAt(obj, "spec", "certificateRef", "name")
	if sni == "" || cert == "" {
		return nil, nil
	}
	u := c.NewUnique(c.release)
	others, err := peers.KongSNIs(ctx, sni)
	if err != nil {
		return nil, err
	}
	certs := map[zoneRef]bool{}
	addCert := func(ns, name string) error {
		k := zoneRef{namespace: ns, name: name}
		if certs[k] {
			return nil
		}
		certs[k] = true
		b, err := peers.KongCertificate(ctx, ns, name)
		if err != nil || b == nil {
			return err
		}
		_, err = u.Add("", kongCertificateGK, b)
		return err
	}
	var ids []int
	for _, o := range others {
		id, err := u.Add("", kongSNIGK, o)
		if err != nil {
			continue // an object the cache holds but cannot be read is no peer
		}
		e := u.snis[len(u.snis)-1]
		if e.obj.Namespace == obj.namespace && e.obj.Name == obj.name {
			u.snis = u.snis[:len(u.snis)-1] // the object itself, before this update
			continue
		}
		ids = append(ids, id)
		if err := addCert(e.certNS, e.cert); err != nil {
			return nil, err
		}
	}
	if len(ids) == 0 {
		return nil, nil
	}
	self, err := u.Add("", kongSNIGK, raw)
	if err != nil {
		return nil, err
	}
	if err := addCert(u.snis[len(u.snis)-1].certNS, cert); err != nil {
		return nil, err
	}
	var out []Clash
	for _, cl := range u.sniClashes(nil) {
		if cl.Of == self {
			out = append(out, cl)
		}
	}
	return out, nil
}

// sameSNI reports whether two versions of a KongSNI have one spec.name and certificate.
func sameSNI(a, b *admitted) bool {
	return stringAt(a, "spec", "name") == stringAt(b, "spec", "name") &&
		stringAt(a, "spec", "certificateRef", "name") == stringAt(b, "spec", "certificateRef", "name")
}
