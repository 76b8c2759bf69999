// Command barelist is the baseline of make bench-audit: a bare paginated listing of the objects
// kriguard audit reads, and nothing more. It pages through each kind (or Kuma resource type) in
// turn, as a client that only lists does, reads each page's items as raw JSON, counts them and
// drops them; it prints the count.
//
//	barelist -kubeconfig FILE -limit 500 kuma.io/v1alpha1/meshtimeouts ... (the Kubernetes API)
//	barelist -kuma-api URL -limit 500 meshtimeouts ...                       (Kuma's REST API)
//
// Against the Kubernetes API it uses client-go's REST client with the audit's settings (JSON, the
// only encoding custom resources have; 50 requests/s, bursts of 100).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to list")
	kumaAPI := flag.String("kuma-api", "", "address of a Kuma control plane's REST API to list instead")
	limit := flag.Int("limit", 500, "objects per page")
	flag.Parse()
	var (
		n   int
		err error
	)
	if *kumaAPI != "" {
		n, err = listKuma(*kumaAPI, *limit, flag.Args())
	} else {
		n, err = listKube(*kubeconfig, *limit, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "barelist:", err)
		os.Exit(2)
	}
	fmt.Println(n)
}

// listKube lists each resource, given as group/version/resource (core: /v1/resource), in pages.
func listKube(kubeconfig string, limit int, resources []string) (int, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return 0, err
	}
	cfg.QPS, cfg.Burst = 50, 100
	client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(cfg))
	if err != nil {
		return 0, err
	}
	ctx := context.Background()
	n := 0
	for _, r := range resources {
		gvr := strings.Split(r, "/")
		if len(gvr) != 3 {
			return n, fmt.Errorf("resource %q: want group/version/resource", r)
		}
		path := []string{"/apis", gvr[0], gvr[1], gvr[2]}
		if gvr[0] == "" {
			path = []string{"/api", gvr[1], gvr[2]}
		}
		token := ""
		for {
			req := client.Get().AbsPath(path...).Param("limit", strconv.Itoa(limit))
			if token != "" {
				req = req.Param("continue", token)
			}
			raw, err := req.Do(ctx).Raw()
			if err != nil {
				return n, fmt.Errorf("listing %s: %w", r, err)
			}
			var page struct {
				Metadata struct {
					Continue string `json:"continue"`
				} `json:"metadata"`
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(raw, &page); err != nil {
				return n, fmt.Errorf("listing %s: %w", r, err)
			}
			n += len(page.Items)
			if token = page.Metadata.Continue; token == "" {
				break
			}
		}
	}
	return n, nil
}

// listKuma lists each resource type, given as its path (meshtimeouts), page by page, following
// each page's next.
func listKuma(base string, size int, paths []string) (int, error) {
	n := 0
	for _, p := range paths {
		q := url.Values{"size": {strconv.Itoa(size)}}
		for {
			resp, err := http.Get(base + "/" + p + "?" + q.Encode())
			if err != nil {
				return n, err
			}
			var page struct {
				Items []json.RawMessage `json:"items"`
				Next  *string           `json:"next"`
			}
			if resp.StatusCode != http.StatusOK {
				err = errors.New(resp.Status)
			} else {
				err = json.NewDecoder(resp.Body).Decode(&page)
			}
			resp.Body.Close()
			if err != nil {
				return n, fmt.Errorf("listing %s: %w", p, err)
			}
			n += len(page.Items)
			if page.Next == nil || *page.Next == "" {
				break
			}
			next, err := url.Parse(*page.Next)
			if err != nil {
				return n, fmt.Errorf("listing %s: %w", p, err)
			}
			q = next.Query()
		}
	}
	return n, nil
}
