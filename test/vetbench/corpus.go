package vetbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
)

// CorpusModule is the module path of a generated corpus.
const CorpusModule = "example.com/vetcorpus"

// Corpus describes a generated module shaped like an xDS control plane: a names package, a builders package
// whose builders keep names in fields, and Packages generator packages that import both and the real
// go-control-plane types. The generated code is free of findings, so krilint and a do-nothing tool both
// succeed on it and differ only in the work they do.
type Corpus struct {
	// Packages is the number of generator packages; the names and builders packages come on top.
	Packages int
	// Requirements is the path of a go.mod (normally test/envoyvet/go.mod) whose require directives the
	// corpus copies, together with the go.sum beside it, so that it resolves exactly the modules that
	// module already downloaded.
	Requirements string
}

// Write writes the corpus into dir, which must exist. It returns the import paths of the generator
// packages.
func (c Corpus) Write(dir string) ([]string, error) {
	if c.Packages < 1 {
		return nil, fmt.Errorf("corpus needs at least one generator package, got %d", c.Packages)
	}
	mod, err := os.ReadFile(c.Requirements)
	if err != nil {
		return nil, fmt.Errorf("reading requirements: %w", err)
	}
	mod, err = renameModule(mod, CorpusModule)
	if err != nil {
		return nil, fmt.Errorf("rewriting %s: %w", c.Requirements, err)
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(c.Requirements), "go.sum"))
	if err != nil {
		return nil, fmt.Errorf("reading go.sum beside requirements: %w", err)
	}
	if err := writeFile(dir, "go.mod", mod); err != nil {
		return nil, err
	}
	if err := writeFile(dir, "go.sum", sum); err != nil {
		return nil, err
	}
	if err := writeFile(dir, "names/names.go", []byte(namesSource)); err != nil {
		return nil, err
	}
	if err := writeFile(dir, "builders/builders.go", []byte(buildersSource)); err != nil {
		return nil, err
	}
	paths := make([]string, 0, c.Packages)
	for i := range c.Packages {
		pkg := generatorPackage(i)
		var buf bytes.Buffer
		data := struct {
			Package string
			Index   int
		}{pkg, i}
		if err := generatorTemplate.Execute(&buf, data); err != nil {
			return nil, fmt.Errorf("generating package %s: %w", pkg, err)
		}
		if err := writeFile(dir, filepath.Join("gen", pkg, "gen.go"), buf.Bytes()); err != nil {
			return nil, err
		}
		if err := c.stamp(dir, i, 0); err != nil {
			return nil, err
		}
		paths = append(paths, CorpusModule+"/gen/"+pkg)
	}
	return paths, nil
}

// Touch rewrites a stamp file in every generator package with round in it, so that go vet has to analyze
// the generator packages again while the results for names, builders and every dependency stay cached.
func (c Corpus) Touch(dir string, round int) error {
	for i := range c.Packages {
		if err := c.stamp(dir, i, round); err != nil {
			return err
		}
	}
	return nil
}

func (c Corpus) stamp(dir string, i, round int) error {
	pkg := generatorPackage(i)
	src := fmt.Sprintf("package %s\n\n// round is rewritten by the benchmark to make go vet analyze the package again.\nconst round = %d\n", pkg, round)
	return writeFile(dir, filepath.Join("gen", pkg, "stamp.go"), []byte(src))
}

func generatorPackage(i int) string { return fmt.Sprintf("p%03d", i) }

func writeFile(dir, name string, data []byte) error {
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating corpus directory: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("writing corpus file: %w", err)
	}
	return nil
}

// renameModule replaces the module directive of a go.mod, keeping everything else.
func renameModule(mod []byte, path string) ([]byte, error) {
	var out bytes.Buffer
	found := false
	sc := bufio.NewScanner(bytes.NewReader(mod))
	for sc.Scan() {
		line := sc.Text()
		if !found && strings.HasPrefix(strings.TrimSpace(line), "module ") {
			line = "module " + path
			found = true
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, errors.New("no module directive")
	}
	return out.Bytes(), nil
}

// The corpus imports only go-control-plane packages that test/envoyvet imports too, so that envoyvet's
// go.sum covers it.

const namesSource = `// Package names formats the corpus's Envoy resource names as KRIs.
package names

import "strings"

// KRI formats a resource identifier.
func KRI(short, mesh, zone, namespace, name, section string) string {
	return strings.Join([]string{"kri", short, mesh, zone, namespace, name, section}, "_")
}

// Internal names a resource only the control plane uses.
func Internal(name string) string {
	return "_" + name
}

// Sanitize makes a string safe for a stat prefix.
func Sanitize(s string) string {
	return strings.NewReplacer(":", "_", ".", "_").Replace(s)
}
`

const buildersSource = `// Package builders keeps names in fields and writes them into go-control-plane types.
package builders

import (
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

type ListenerBuilder struct {
	name       string
	statPrefix string
	address    string
	port       uint32
	chains     []*listenerv3.FilterChain
}

func NewListenerBuilder(name string) *ListenerBuilder { return &ListenerBuilder{name: name} }

func (b *ListenerBuilder) Address(addr string, port uint32) *ListenerBuilder {
	b.address, b.port = addr, port
	return b
}

func (b *ListenerBuilder) StatPrefix(p string) *ListenerBuilder {
	b.statPrefix = p
	return b
}

func (b *ListenerBuilder) FilterChain(name string) *ListenerBuilder {
	b.chains = append(b.chains, &listenerv3.FilterChain{Name: name})
	return b
}

func (b *ListenerBuilder) Build() *listenerv3.Listener {
	return &listenerv3.Listener{
		Name:       b.name,
		StatPrefix: b.statPrefix,
		Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
			Address:       b.address,
			PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: b.port},
		}}},
		FilterChains: b.chains,
	}
}

type ClusterBuilder struct {
	name      string
	endpoints []string
}

func NewClusterBuilder(name string) *ClusterBuilder { return &ClusterBuilder{name: name} }

func (b *ClusterBuilder) Endpoint(addr string) *ClusterBuilder {
	b.endpoints = append(b.endpoints, addr)
	return b
}

func (b *ClusterBuilder) Build() (*clusterv3.Cluster, *endpointv3.ClusterLoadAssignment) {
	cla := &endpointv3.ClusterLoadAssignment{ClusterName: b.name}
	for _, addr := range b.endpoints {
		cla.Endpoints = append(cla.Endpoints, &endpointv3.LocalityLbEndpoints{
			LbEndpoints: []*endpointv3.LbEndpoint{{
				HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
					Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{Address: addr}}},
				}},
			}},
		})
	}
	return &clusterv3.Cluster{Name: b.name, AltStatName: b.name}, cla
}

type RouteOptions struct {
	Name        string
	VirtualHost string
	Domains     []string
	Cluster     string
	Prefix      string
}

func Routes(opts RouteOptions) *routev3.RouteConfiguration {
	return &routev3.RouteConfiguration{
		Name: opts.Name,
		VirtualHosts: []*routev3.VirtualHost{{
			Name:    opts.VirtualHost,
			Domains: opts.Domains,
			Routes: []*routev3.Route{{
				Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: opts.Prefix}},
				Action: &routev3.Route_Route{Route: &routev3.RouteAction{
					ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: opts.Cluster},
				}},
			}},
		}},
	}
}

func HTTP(statPrefix, routes string) *hcmv3.HttpConnectionManager {
	return &hcmv3.HttpConnectionManager{
		StatPrefix:     statPrefix,
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{RouteConfigName: routes}},
	}
}

func TCP(statPrefix, cluster string) *tcpv3.TcpProxy {
	return &tcpv3.TcpProxy{StatPrefix: statPrefix, ClusterSpecifier: &tcpv3.TcpProxy_Cluster{Cluster: cluster}}
}

func Secret(name string) (*tlsv3.Secret, *tlsv3.SdsSecretConfig) {
	return &tlsv3.Secret{Name: name}, &tlsv3.SdsSecretConfig{Name: name}
}
`

var generatorTemplate = template.Must(template.New("gen").Parse(`// Package {{.Package}} generates the Envoy resources of one group of services.
package {{.Package}}

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"

	"` + CorpusModule + `/builders"
	"` + CorpusModule + `/names"
)

const (
	mesh  = "mesh-{{.Index}}"
	group = "group-{{.Index}}"
)

var errNoPorts = errors.New("service has no ports")

type Service struct {
	Namespace string
	Name      string
	Address   string
	Ports     []uint32
	TCP       bool
}

type Resources struct {
	Listeners []*listenerv3.Listener
	Clusters  []*clusterv3.Cluster
	Endpoints []*endpointv3.ClusterLoadAssignment
	Routes    []*routev3.RouteConfiguration
	HTTP      []*hcmv3.HttpConnectionManager
	TCP       []*tcpv3.TcpProxy
	Secrets   []*tlsv3.Secret
	Refs      []*tlsv3.SdsSecretConfig
}

func Generate(services []Service) (*Resources, error) {
	res := &Resources{}
	sort.Slice(services, func(i, j int) bool { return services[i].Name < services[j].Name })
	for _, svc := range services {
		if len(svc.Ports) == 0 {
			return nil, fmt.Errorf("service %s/%s: %w", svc.Namespace, svc.Name, errNoPorts)
		}
		for _, port := range svc.Ports {
			if err := generatePort(res, svc, port); err != nil {
				return nil, fmt.Errorf("service %s:%d: %w", svc.Name, port, err)
			}
		}
		secret, ref := builders.Secret(names.KRI("mtls", mesh, "", svc.Namespace, svc.Name, ""))
		res.Secrets = append(res.Secrets, secret)
		res.Refs = append(res.Refs, ref)
	}
	return res, nil
}

func generatePort(res *Resources, svc Service, port uint32) error {
	section := strconv.FormatUint(uint64(port), 10)
	name := names.KRI("msvc", mesh, "", svc.Namespace, svc.Name, section)
	stat := names.Sanitize(fmt.Sprintf("%s:%s:%d", group, svc.Name, port))
	listener := builders.NewListenerBuilder(names.KRI("dp", mesh, "", svc.Namespace, svc.Name, section)).
		Address(svc.Address, port).
		StatPrefix(stat).
		FilterChain(names.Internal("chain_" + section)).
		Build()
	res.Listeners = append(res.Listeners, listener)

	cb := builders.NewClusterBuilder(name)
	for i := 0; i < 3; i++ {
		cb.Endpoint(fmt.Sprintf("10.{{.Index}}.%d.%d", port%256, i))
	}
	cluster, cla := cb.Build()
	if cluster.GetName() != cla.GetClusterName() {
		return fmt.Errorf("cluster %q and load assignment %q differ", cluster.GetName(), cla.GetClusterName())
	}
	res.Clusters = append(res.Clusters, cluster)
	res.Endpoints = append(res.Endpoints, cla)

	if svc.TCP {
		res.TCP = append(res.TCP, builders.TCP(stat, name))
		return nil
	}
	routes := names.KRI("mhttpr", mesh, "", svc.Namespace, svc.Name, section)
	res.Routes = append(res.Routes, builders.Routes(builders.RouteOptions{
		Name:        routes,
		VirtualHost: names.Internal(svc.Name),
		Domains:     []string{svc.Name, svc.Name + ":" + section},
		Cluster:     name,
		Prefix:      "/",
	}))
	res.HTTP = append(res.HTTP, builders.HTTP(stat, routes))
	return nil
}

func Index(res *Resources) map[string]*clusterv3.Cluster {
	byName := make(map[string]*clusterv3.Cluster, len(res.Clusters))
	for _, c := range res.Clusters {
		byName["cluster:"+c.GetName()] = c
	}
	return byName
}
`))
