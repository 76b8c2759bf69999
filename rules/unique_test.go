package rules

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kriguard/kriguard/naming"
)

// acrossObjects are the rules only Unique applies: TestRuleIDs leaves them to TestUnique.
var acrossObjects = map[Rule]bool{RuleKDSCollision: true, RuleKumaRouteName: true, RuleKongSNIUnique: true, RuleKongGeneratedUnique: true}

type input struct {
	zone string
	kind schema.GroupKind
	raw  string
}

// universal says whether in is a Kuma Universal resource (AddUniversal), as universalObj writes one.
func (in input) universal() bool { return strings.HasPrefix(in.raw, `{"type":`) }

// universalObj is a Universal resource as a control plane's REST API lists it.
func universalObj(kind, name, labels string) input {
	return input{kind: schema.GroupKind{Group: KumaGroup, Kind: kind},
		raw: `{"type":"` + kind + `","mesh":"default","name":"` + name + `","labels":{"kuma.io/mesh":"default"` + labels + `},"spec":{}}`}
}

func kumaObj(kind, ns, name, labels string) input {
	return input{"", schema.GroupKind{Group: KumaGroup, Kind: kind}, `{"apiVersion":"kuma.io/v1alpha1","kind":"` + kind + `","metadata":{"name":"` + name + `","namespace":"` + ns + `","labels":{"kuma.io/mesh":"default"` + labels + `}}}`}
}

func kongCert(ns, name, cp string) input {
	return input{"", kongCertificateGK, `{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongCertificate","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"type":"secretRef","controlPlaneRef":{"type":"konnectNamespacedRef","konnectNamespacedRef":{"name":"` + cp + `"}}}}`}
}

func kongSNI(ns, name, sni, cert string) input {
	return input{"", kongSNIGK, `{"apiVersion":"configuration.konghq.com/v1alpha1","kind":"KongSNI","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"name":"` + sni + `","certificateRef":{"name":"` + cert + `"}}}`}
}

func gateway(ns, name, class, listeners string) input {
	return input{"", gatewayKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"gatewayClassName":"` + class + `","listeners":[` + listeners + `]}}`}
}

func listener(name string, port int, hostname string, refs ...string) string {
	s := `{"name":"` + name + `","port":` + strconv.Itoa(port) + `,"protocol":"HTTPS"`
	if hostname != "" {
		s += `,"hostname":"` + hostname + `"`
	}
	s += `,"tls":{"certificateRefs":[`
	for i, r := range refs {
		if i > 0 {
			s += ","
		}
		s += `{"name":"` + r + `"}`
	}
	return s + `]}}`
}

func httpRoute(ns, name string, parents ...string) input {
	return input{"", httpRouteKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"` + name + `","namespace":"` + ns + `"},"spec":{"parentRefs":[` + strings.Join(parents, ",") + `]}}`}
}

func inZone(zone string, in input) input { in.zone = zone; return in }

func TestUnique(t *testing.T) {
	tests := []struct {
		name string
		in   []input
		// want is one line per clash: rule, the object, the peer and the shared name.
		want []string
	}{
		{"KDS copies of two zones collide (no separator in the hash)", []input{
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", "")),
			inZone("zone-1a", kumaObj("MeshService", "bc", "backend", "")),
		}, []string{"kuma/kds-collision MeshService bc/backend < MeshService abc/backend backend-z9vdzz8dx42ffz26"}},
		{"the zone label names the zone", []input{
			kumaObj("MeshService", "abc", "backend", `,"kuma.io/zone":"zone-1"`),
			kumaObj("MeshService", "bc", "backend", `,"kuma.io/zone":"zone-1a"`),
		}, []string{"kuma/kds-collision MeshService bc/backend < MeshService abc/backend backend-z9vdzz8dx42ffz26"}},
		{"one name in two zones", []input{
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", "")),
			inZone("zone-2", kumaObj("MeshService", "abc", "backend", "")),
		}, nil},
		{"one copy name, two kinds", []input{
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", "")),
			inZone("zone-1a", kumaObj("MeshTimeout", "bc", "backend", "")),
		}, nil},
		{"copies are Kuma's own", []input{
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", "")),
			inZone("zone-1a", kumaObj("MeshService", "kuma-system", "backend-z9vdzz8dx42ffz26", `,"kuma.io/origin":"global"`)),
		}, nil},
		{"objects of global are not kept (a squat is kuma/kds-squat's, from the name)", []input{
			kumaObj("MeshTimeout", "kuma-system", "mesh-timeout-all-default", ""),
			inZone("zone-1", kumaObj("MeshTimeout", "kuma-system", "mesh-timeout-all-default-w4dzbd54v9x64485", "")),
		}, nil},
		{"Universal: global's copy of zone-1's backend, and zone-1a's backend", []input{
			universalObj("MeshService", "backend-z9vdzz8dx42ffz26", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc","kuma.io/display-name":"backend"`),
			universalObj("MeshService", "backend", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1a","k8s.kuma.io/namespace":"bc"`),
		}, []string{"kuma/kds-collision MeshService backend of mesh default < MeshService backend-z9vdzz8dx42ffz26 of mesh default backend-z9vdzz8dx42ffz26"}},
		{"Universal: a zone's object and global's copy of it are one", []input{
			universalObj("MeshService", "backend", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc"`),
			universalObj("MeshService", "backend-z9vdzz8dx42ffz26", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc","kuma.io/display-name":"backend"`),
		}, nil},
		{"a Kubernetes zone's object against global's Universal copy of another", []input{
			universalObj("MeshService", "backend-z9vdzz8dx42ffz26", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc","kuma.io/display-name":"backend"`),
			inZone("zone-1a", kumaObj("MeshService", "bc", "backend", "")),
		}, []string{"kuma/kds-collision MeshService bc/backend < MeshService backend-z9vdzz8dx42ffz26 of mesh default backend-z9vdzz8dx42ffz26"}},
		{"Universal resources of global are not kept", []input{
			universalObj("MeshService", "backend", `,"kuma.io/origin":"global"`),
			universalObj("MeshService", "backend-z9vdzz8dx42ffz26", `,"kuma.io/origin":"zone","kuma.io/zone":"zone-1","k8s.kuma.io/namespace":"abc","kuma.io/display-name":"backend"`),
			universalObj("MeshTimeout", "backend-z9vdzz8dx42ffz26", ``),
		}, nil},
		{"a second KongSNI * on one control plane", []input{
			kongCert("default", "cert.gw1.443.https", "cp-a"), kongSNI("default", "cert.gw1.443.https", "*", "cert.gw1.443.https"),
			kongCert("default", "cert.gw1.8443.https-alt", "cp-a"), kongSNI("default", "cert.gw1.8443.https-alt", "*", "cert.gw1.8443.https-alt"),
		}, []string{"kong/sni-unique KongSNI default/cert.gw1.8443.https-alt < KongSNI default/cert.gw1.443.https *"}},
		{"KongSNI * on two control planes", []input{
			kongCert("default", "cert.gw-a.443.https", "cp-a"), kongSNI("default", "cert.gw-a.443.https", "*", "cert.gw-a.443.https"),
			kongCert("default", "cert.gw-c.443.https", "cp-b"), kongSNI("default", "cert.gw-c.443.https", "*", "cert.gw-c.443.https"),
		}, nil},
		{"KongSNI before its certificate", []input{
			kongSNI("default", "a", "api.example.com", "ca"), kongSNI("default", "b", "api.example.com", "cb"),
			kongCert("default", "ca", "cp-a"), kongCert("default", "cb", "cp-a"),
		}, []string{"kong/sni-unique KongSNI default/b < KongSNI default/a api.example.com"}},
		{"dotted Gateway and listener names give one name", []input{
			gateway("default", "g.1", "kong", listener("x", 2, "a.example.com", "tls-a")),
			gateway("default", "g", "kong", listener("2.x", 1, "b.example.com", "tls-b")),
		}, []string{"kong/generated-unique Gateway default/g < Gateway default/g.1 cert.g.1.2.x"}},
		{"two certificateRefs on one listener", []input{
			gateway("default", "gw1", "kong", listener("https", 443, "api.example.com", "tls-rsa", "tls-ecdsa")),
		}, []string{"kong/generated-unique Gateway default/gw1 < Gateway default/gw1 cert.gw1.443.https"}},
		{"two listeners without a hostname", []input{
			gateway("default", "gw1", "kong", listener("https", 443, "", "tls-a")+","+listener("https-alt", 8443, "", "tls-a")),
		}, []string{"kong/sni-unique Gateway default/gw1 < Gateway default/gw1 *"}},
		{"one object read twice", []input{
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", "")),
			inZone("zone-1", kumaObj("MeshService", "abc", "backend", `,"team":"a"`)),
			kongCert("default", "c", "cp-a"), kongSNI("default", "s", "*", "c"), kongSNI("default", "s", "*", "c"),
			gateway("default", "gw1", "kong", listener("https", 443, "", "tls-a")),
			gateway("default", "gw1", "kong", listener("https", 443, "", "tls-b")),
		}, nil},
		{"two HTTPRoutes, one MeshHTTPRoute name", []input{
			httpRoute("b-c", "a", `{"group":"","kind":"Service","name":"s","namespace":"n"}`),
			httpRoute("c", "a-b", `{"kind":"Service","name":"s","namespace":"n"}`),
		}, []string{"kuma/route-name HTTPRoute c/a-b < HTTPRoute b-c/a a-b-c-s.n"}},
		{"a MeshHTTPRoute name over 253 characters", []input{
			httpRoute("ns", strings.Repeat("r", 250), `{"group":"","kind":"Service","name":"svc"}`),
		}, []string{"kuma/route-name HTTPRoute ns/" + strings.Repeat("r", 250) + " < HTTPRoute ns/" + strings.Repeat("r", 250) + " " + strings.Repeat("r", 250) + "-ns-svc.ns"}},
		{"two HTTPRoutes, one Gateway, one MeshHTTPRoute name (2.14)", []input{
			httpRoute("c", "a-b", `{"name":"gw","namespace":"gws"}`),
			httpRoute("b-c", "a", `{"name":"gw","namespace":"gws"}`),
		}, []string{"kuma/route-name HTTPRoute b-c/a < HTTPRoute c/a-b a-b-c-e1548f02"}},
		{"the same on a Gateway of Kuma's class", []input{
			{"", gatewayClassKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"kuma"},"spec":{"controllerName":"gateways.kuma.io/controller"}}`},
			gateway("gws", "gw", "kuma", ""),
			httpRoute("c", "a-b", `{"name":"gw","namespace":"gws"}`),
			httpRoute("b-c", "a", `{"name":"gw","namespace":"gws"}`),
		}, []string{"kuma/route-name HTTPRoute b-c/a < HTTPRoute c/a-b a-b-c-e1548f02"}},
		{"the same on a Gateway of another controller: Kuma makes no MeshHTTPRoute", []input{
			{"", gatewayClassKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"kong"},"spec":{"controllerName":"konghq.com/gateway-operator"}}`},
			gateway("gws", "gw", "kong", ""),
			httpRoute("c", "a-b", `{"name":"gw","namespace":"gws"}`),
			httpRoute("b-c", "a", `{"name":"gw","namespace":"gws"}`),
		}, nil},
		{"two Gateway parentRefs of one route, one hash (2.14 keeps the last)", []input{
			httpRoute("default", "r", `{"name":"bgw","sectionName":"a"}`, `{"name":"gw","sectionName":"ab"}`),
		}, []string{"kuma/route-name HTTPRoute default/r < HTTPRoute default/r r-default-1dd4118b"}},
		{"a '.' where Kuma cuts a Gateway parent's name", []input{
			httpRoute("ns", strings.Repeat("r", 243)+".x", `{"name":"gw"}`),
		}, []string{"kuma/route-name HTTPRoute ns/" + strings.Repeat("r", 243) + ".x < HTTPRoute ns/" + strings.Repeat("r", 243) + ".x " + strings.Repeat("r", 243) + ".-93cc10c0"}},
		{"Gateway parents of two namespaces, and in 2.14 MeshService parents, give no one name", []input{
			httpRoute("b-c", "a", `{"name":"gw"}`, `{"group":"kuma.io","kind":"MeshService","name":"s","namespace":"n"}`),
			httpRoute("c", "a-b", `{"name":"gw"}`, `{"group":"kuma.io","kind":"MeshService","name":"s","namespace":"n"}`),
		}, nil},
		{"a Gateway of another controller", []input{
			{"", gatewayClassKind, `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"GatewayClass","metadata":{"name":"istio"},"spec":{"controllerName":"istio.io/gateway-controller"}}`},
			gateway("default", "gw1", "istio", listener("https", 443, "", "tls-a")+","+listener("https-alt", 8443, "", "tls-a")),
		}, nil},
	}
	c := DefaultConfig()
	// Each case reads the objects as they are (Add, AddUniversal), and as an audit does, once decided
	// (AddDecided, AddUniversalDecided).
	add := map[string]func(u *Unique, in input) error{
		"Add": func(u *Unique, in input) error {
			add := u.Add
			if in.universal() {
				add = u.AddUniversal
			}
			_, err := add(in.zone, in.kind, []byte(in.raw))
			return err
		},
		"AddDecided": func(u *Unique, in input) error {
			if in.universal() {
				d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: in.kind, Object: []byte(in.raw), Universal: true})
				if err != nil {
					return err
				}
				if d.universal == nil {
					return fmt.Errorf("Decide kept no decoded %s", in.kind)
				}
				_, err = u.AddUniversalDecided(in.zone, in.kind, []byte(in.raw), &d)
				return err
			}
			d, err := c.Decide(context.Background(), Request{Phase: Admit, Kind: in.kind, Object: []byte(in.raw)})
			if err != nil {
				return err
			}
			if in.kind.Group == KumaGroup && d.decoded == nil {
				return fmt.Errorf("Decide kept no decoded %s", in.kind)
			}
			_, err = u.AddDecided(in.zone, in.kind, []byte(in.raw), &d)
			return err
		},
	}
	for _, tt := range tests {
		for _, how := range []string{"Add", "AddDecided"} {
			t.Run(tt.name+"/"+how, func(t *testing.T) {
				u := c.NewUnique(naming.Release{})
				for _, in := range tt.in {
					if err := add[how](u, in); err != nil {
						t.Fatal(err)
					}
				}
				var got []string
				for _, cl := range u.Findings() {
					got = append(got, string(cl.Rule)+" "+describe(cl.Object, "")+" < "+describe(cl.Peer, "")+" "+cl.Name)
					if cl.Peer != cl.Object && !strings.Contains(cl.Message(), cl.Peer.Name) {
						t.Errorf("message %q does not name the other object %q", cl.Message(), cl.Peer.Name)
					}
				}
				if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
					t.Errorf("clashes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
			})
		}
	}
}

// On 3.0 a MeshService parent gives a name too: <route>-<ns>-meshservice-<name>.<namespace>.
func TestRouteNamesRelease(t *testing.T) {
	u := DefaultConfig().NewUnique(naming.Kuma3_0)
	for _, in := range []input{
		httpRoute("b-c", "a", `{"group":"kuma.io","kind":"MeshService","name":"s","namespace":"n"}`),
		httpRoute("c", "a-b", `{"group":"kuma.io","kind":"MeshService","name":"s","namespace":"n"}`),
	} {
		if _, err := u.Add("", in.kind, []byte(in.raw)); err != nil {
			t.Fatal(err)
		}
	}
	cs := u.Findings()
	if len(cs) != 1 || cs[0].Name != "a-b-c-meshservice-s.n" || cs[0].Rule != RuleKumaRouteName {
		t.Errorf("clashes %+v, want one of kuma/route-name on a-b-c-meshservice-s.n", cs)
	}
}

// fakePeers is a Peers over objects in memory, or failing with err.
type fakePeers struct {
	objs []input
	err  error
}

func (f *fakePeers) KongSNIs(_ context.Context, sni string) ([][]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	var out [][]byte
	for _, o := range f.objs {
		if o.kind == kongSNIGK && strings.Contains(o.raw, `"spec":{"name":"`+sni+`"`) {
			out = append(out, []byte(o.raw))
		}
	}
	return out, nil
}

func (f *fakePeers) KongCertificate(_ context.Context, ns, name string) ([]byte, error) {
	for _, o := range f.objs {
		if o.kind == kongCertificateGK && strings.Contains(o.raw, `"metadata":{"name":"`+name+`","namespace":"`+ns+`"}`) {
			return []byte(o.raw), nil
		}
	}
	return nil, nil
}

// TestAdmissionPeers: at admission, a second KongSNI "*" on one control plane is denied, one on
// another control plane admitted, and peers that cannot answer only add a note.
func TestAdmissionPeers(t *testing.T) {
	existing := []input{
		kongCert("default", "cert.gw1.443.https", "cp-a"), kongSNI("default", "cert.gw1.443.https", "*", "cert.gw1.443.https"),
		kongCert("default", "cert.gw1.8443.https-alt", "cp-a"), kongCert("default", "cert.gw-c.443.https", "cp-b"),
	}
	c := DefaultConfig()
	for _, tt := range []struct {
		name    string
		peers   Peers
		op      string
		obj     input
		allowed bool
		note    bool
	}{
		{"same control plane", &fakePeers{objs: existing}, "CREATE", kongSNI("default", "cert.gw1.8443.https-alt", "*", "cert.gw1.8443.https-alt"), false, false},
		{"another control plane", &fakePeers{objs: existing}, "CREATE", kongSNI("default", "cert.gw-c.443.https", "*", "cert.gw-c.443.https"), true, false},
		{"another SNI", &fakePeers{objs: existing}, "CREATE", kongSNI("default", "cert.gw1.8443.https-alt", "api.example.com", "cert.gw1.8443.https-alt"), true, false},
		{"the object itself, updated", &fakePeers{objs: existing}, "UPDATE", kongSNI("default", "cert.gw1.443.https", "*", "cert.gw1.443.https"), true, false},
		{"cold cache", &fakePeers{err: fmt.Errorf("%w: the cache has not synced yet", ErrPeersUnknown)}, "CREATE", kongSNI("default", "cert.gw1.8443.https-alt", "*", "cert.gw1.8443.https-alt"), true, true},
		{"no peers", nil, "CREATE", kongSNI("default", "cert.gw1.8443.https-alt", "*", "cert.gw1.8443.https-alt"), true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Request{Phase: Validate, Kind: kongSNIGK, Operation: admissionv1.Operation(tt.op), Object: []byte(tt.obj.raw), Peers: tt.peers}
			if tt.op == "UPDATE" {
				r.OldObject = r.Object
			}
			d, err := c.Decide(context.Background(), r)
			if err != nil {
				t.Fatal(err)
			}
			if d.Allowed != tt.allowed {
				t.Errorf("allowed %v, want %v: %v", d.Allowed, tt.allowed, d.Errors())
			}
			if got := len(d.Notes()) > 0; got != tt.note {
				t.Errorf("notes %v, want a note %v", d.Notes(), tt.note)
			}
			if !tt.allowed && !strings.Contains(d.Errors().ToAggregate().Error(), "cert.gw1.443.https") {
				t.Errorf("the denial %v does not name the other KongSNI", d.Errors())
			}
		})
	}
}
