package rules

import (
	"context"
	"fmt"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
)

// indexedPeers is a Peers over 10,000 objects indexed as the webhook's cache indexes them.
type indexedPeers struct {
	snis  map[string][][]byte
	certs map[string][]byte
}

func (p *indexedPeers) KongSNIs(_ context.Context, sni string) ([][]byte, error) {
	return p.snis[sni], nil
}

func (p *indexedPeers) KongCertificate(_ context.Context, ns, name string) ([]byte, error) {
	return p.certs[ns+"/"+name], nil
}

// BenchmarkAdmissionPeers: the validating decision on a KongSNI with the comparison against
// 10,000 cached objects (5,000 KongSNIs, one of them of the same SNI, and their certificates)
// against the same decision without peers.
func BenchmarkAdmissionPeers(b *testing.B) {
	p := &indexedPeers{snis: map[string][][]byte{}, certs: map[string][]byte{}}
	for i := range 5000 {
		cert := fmt.Sprintf("cert.gw%d.443.https", i)
		sni := fmt.Sprintf("host-%d.example.com", i)
		p.snis[sni] = append(p.snis[sni], []byte(kongSNI("default", cert, sni, cert).raw))
		p.certs["default/"+cert] = []byte(kongCert("default", cert, "cp-b").raw)
	}
	obj := []byte(kongSNI("default", "cert.new.443.https", "host-7.example.com", "cert.new.443.https").raw)
	p.certs["default/cert.new.443.https"] = []byte(kongCert("default", "cert.new.443.https", "cp-b").raw)
	c := DefaultConfig()
	for _, bc := range []struct {
		name  string
		peers Peers
	}{{"without peers", nil}, {"with 10000 cached", p}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			r := Request{Phase: Validate, Kind: kongSNIGK, Operation: admissionv1.Create, Object: obj, Peers: bc.peers}
			for b.Loop() {
				d, err := c.Decide(context.Background(), r)
				if err != nil || (bc.peers != nil && d.Allowed) {
					b.Fatalf("allowed %v, %v: the clash with host-7's KongSNI is not found", d.Allowed, err)
				}
			}
		})
	}
}
