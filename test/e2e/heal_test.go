package e2e

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kriguard/kriguard/test/e2e/webhookenv"
)

// TestCertificateHeals runs a second webhook of two replicas behind one address (a TCP balancer
// standing in for the Service) for one namespace, keeps admitting objects through the API server,
// and deletes the serving-certificate Secret, as an operator forcing a rotation does. The replicas
// must notice, a new CA must be issued, the webhook configurations must end up trusting only the
// new CA, both replicas must serve a certificate of it, and not one admission may fail meanwhile.
func TestCertificateHeals(t *testing.T) {
	ns := newNamespace(t)
	ctx := testContext(t)
	dir := t.TempDir()
	s, err := webhookenv.NewSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Namespace = "kriguard-heal"
	s.ValidatingName, s.MutatingName = "kriguard-heal-validating", "kriguard-heal-mutating"
	s.Namespaces = []string{ns}
	s.ShutdownDelay = 0
	if err := s.Prepare(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	const overlap = 8 * time.Second
	var replicas []*webhookenv.Setup
	for i := range 2 {
		r := *s
		ports, err := webhookenv.FreePorts(3)
		if err != nil {
			t.Fatal(err)
		}
		r.Port = ports[0]
		if i > 0 { // the first replica answers the readiness probe WaitReady reads
			r.HealthPort, r.MetricsPort = ports[1], ports[2]
		}
		r.CertDir = filepath.Join(dir, "replica-"+strconv.Itoa(i))
		stop, err := webhookenv.StartManager(ctx, env.Config, append(r.Args(), "--ca-overlap="+overlap.String()))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := stop(); err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
		})
		replicas = append(replicas, &r)
	}
	balance(t, net.JoinHostPort(s.Host, strconv.Itoa(s.Port)), replicas)
	if err := s.Register(ctx, env.Client); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Unregister(context.Background(), env.Client) })
	for i, r := range replicas {
		if err := r.WaitReady(ctx, env.Client); err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	oldCA := secretCA(ctx, t, s)

	// Load: admissions one after the other, each through both replicas in turn.
	var admitted, failed atomic.Int64
	var firstErr atomic.Pointer[error]
	loadCtx, stopLoad := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; loadCtx.Err() == nil; i++ {
			err := env.Client.Create(loadCtx, meshTimeout(ns, fmt.Sprintf("load-%d", i), nil, "http"))
			switch {
			case err == nil:
				admitted.Add(1)
			case loadCtx.Err() != nil:
			default:
				failed.Add(1)
				firstErr.CompareAndSwap(nil, &err)
			}
		}
	}()
	waitFor(ctx, t, "admissions before the deletion", func() error { return atLeast(&admitted, 20) })

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: s.SecretName}}
	if err := env.Client.Delete(ctx, secret); err != nil {
		t.Fatalf("deleting the certificate secret: %v", err)
	}
	var newCA *x509.Certificate
	waitFor(ctx, t, "a new CA in the secret", func() error {
		newCA = secretCA(ctx, t, s)
		if newCA == nil || newCA.Equal(oldCA) {
			return errors.New("the secret holds no new CA yet")
		}
		return nil
	})
	waitFor(ctx, t, "both replicas serving a certificate of the new CA", func() error {
		for i, r := range replicas {
			if err := servedBy(r, newCA); err != nil {
				return fmt.Errorf("replica %d: %w", i, err)
			}
		}
		return nil
	})
	waitFor(ctx, t, "the webhook configurations trusting only the new CA", func() error {
		bundles, err := s.CABundles(ctx, env.Client)
		if err != nil {
			return err
		}
		for i, b := range bundles {
			if cas := pemCerts(b); len(cas) != 1 || !cas[0].Equal(newCA) {
				return fmt.Errorf("webhook %d trusts %d CAs", i, len(cas))
			}
		}
		return nil
	})
	before := admitted.Load()
	waitFor(ctx, t, "admissions after the rotation", func() error { return atLeast(&admitted, before+20) })
	stopLoad()
	wg.Wait()

	if n := failed.Load(); n > 0 {
		t.Errorf("%d of %d admissions failed during the rotation; first: %v", n, n+admitted.Load(), *firstErr.Load())
	}
	if failed.Load() == 0 {
		t.Logf("%d admissions, none failed, while the secret was deleted and the CA rotated", admitted.Load())
	}
}

func atLeast(n *atomic.Int64, want int64) error {
	if got := n.Load(); got < want {
		return fmt.Errorf("%d of %d", got, want)
	}
	return nil
}

// waitFor polls f every 100ms until it succeeds, failing the test when ctx ends first.
func waitFor(ctx context.Context, t *testing.T, what string, f func() error) {
	t.Helper()
	for {
		err := f()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// secretCA is the CA in the certificate secret, or nil.
func secretCA(ctx context.Context, t *testing.T, s *webhookenv.Setup) *x509.Certificate {
	t.Helper()
	secret := &corev1.Secret{}
	if err := env.Client.Get(ctx, types.NamespacedName{Namespace: s.Namespace, Name: s.SecretName}, secret); err != nil {
		return nil
	}
	if cas := pemCerts(secret.Data["ca.crt"]); len(cas) > 0 {
		return cas[0]
	}
	return nil
}

func pemCerts(b []byte) []*x509.Certificate {
	var out []*x509.Certificate
	for {
		var block *pem.Block
		if block, b = pem.Decode(b); block == nil {
			return out
		}
		if c, err := x509.ParseCertificate(block.Bytes); err == nil {
			out = append(out, c)
		}
	}
}

// servedBy checks that the replica serves a certificate for its DNS name signed by ca.
func servedBy(r *webhookenv.Setup, ca *x509.Certificate) error {
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 2 * time.Second}, "tcp",
		net.JoinHostPort(r.Host, strconv.Itoa(r.Port)), &tls.Config{RootCAs: pool, ServerName: r.DNSName})
	if err != nil {
		return err
	}
	return conn.Close()
}

// balance forwards every connection to addr to the replicas in turn, as a Service does.
func balance(t *testing.T, addr string, replicas []*webhookenv.Setup) {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for i := 0; ; i++ {
			in, err := l.Accept()
			if err != nil {
				return
			}
			r := replicas[i%len(replicas)]
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", net.JoinHostPort(r.Host, strconv.Itoa(r.Port)))
				if err != nil {
					return
				}
				defer out.Close()
				done := make(chan struct{}, 2)
				go func() { _, _ = io.Copy(out, in); done <- struct{}{} }()
				go func() { _, _ = io.Copy(in, out); done <- struct{}{} }()
				<-done
			}()
		}
	}()
}
