// Command cluster is the e2e harness: embedded etcd and a real kube-apiserver (the code of
// cmd/kube-apiserver, not a fake) in one process on 127.0.0.1, on free ports. It writes an
// admin kubeconfig, prints one JSON line on stdout when the API server is ready, and shuts
// both down on SIGTERM or SIGINT.
//
// The same binary is kubectl (k8s.io/kubectl, the code of cmd/kubectl) when it is called as
// `kubectl` (a symlink) or with `kubectl` as its first argument: one build, one module set,
// client and server of the same version.
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/server/v3/embed"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// users of the static token file: the admin the tests act as, a second user so that
// creator and lastModifier can differ, and a user for Duckbill itself. All three are in
// system:masters; Duckbill's own RBAC is exercised by the tests through impersonation.
var users = []struct{ name, group string }{
	{"e2e-admin", "system:masters"},
	{"e2e-alice", "system:masters"},
	{"e2e-bob", "system:masters"},
}

type ready struct {
	Ready      bool   `json:"ready"`
	Kubeconfig string `json:"kubeconfig"`
	Server     string `json:"server"`
	Etcd       string `json:"etcd"`
	Dir        string `json:"dir"`
	PID        int    `json:"pid"`
	StartMs    int64  `json:"startMs"`
	EtcdMs     int64  `json:"etcdMs"`
	Version    string `json:"version"`
}

func main() {
	if isKubectl() {
		os.Exit(runKubectl())
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}

func run() error {
	kubeconfigPath := flag.String("kubeconfig", "", "where to write the admin kubeconfig (required)")
	dataDir := flag.String("data-dir", "", "etcd data and certificates (default: a new temporary directory, removed on exit)")
	verbosity := flag.Int("v", 0, "kube-apiserver log verbosity (klog -v); logs go to stderr")
	var extra stringList
	flag.Var(&extra, "apiserver-arg", "an extra kube-apiserver flag, e.g. --apiserver-arg=--audit-log-path=/tmp/a (repeatable)")
	flag.Parse()
	if *kubeconfigPath == "" {
		return errors.New("--kubeconfig is required")
	}
	setupKlog(*verbosity)

	started := time.Now()
	dir := *dataDir
	if dir == "" {
		d, err := os.MkdirTemp("", "duckbill-e2e-cluster-")
		if err != nil {
			return err
		}
		dir = d
		defer os.RemoveAll(dir)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	etcd, etcdURL, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer etcd.Close()
	etcdMs := time.Since(started).Milliseconds()

	server, tokens, done, err := startAPIServer(ctx, dir, etcdURL, extra)
	if err != nil {
		return fmt.Errorf("kube-apiserver: %w", err)
	}
	if err := waitReady(ctx, server, done); err != nil {
		return err
	}
	if err := writeKubeconfig(*kubeconfigPath, server, tokens); err != nil {
		return err
	}
	line, _ := json.Marshal(ready{
		Ready: true, Kubeconfig: *kubeconfigPath, Server: server.Host, Etcd: etcdURL, Dir: dir,
		PID: os.Getpid(), StartMs: time.Since(started).Milliseconds(), EtcdMs: etcdMs,
		Version: versionString(),
	})
	fmt.Println(string(line))

	select {
	case <-ctx.Done():
		// The API server stops on ctx; wait for it so that etcd closes after it.
		select {
		case err := <-done:
			if err != nil {
				klog.ErrorS(err, "kube-apiserver stopped with an error")
			}
		case <-time.After(30 * time.Second):
			return errors.New("kube-apiserver did not stop within 30s")
		}
		return nil
	case err := <-done:
		return fmt.Errorf("kube-apiserver stopped: %v", err)
	}
}

// startEtcd runs a single-member etcd on two free loopback ports. Fsync is off: the data
// is thrown away with the process.
func startEtcd(dir string) (*embed.Etcd, string, error) {
	clientPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	peerPort, err := freePort()
	if err != nil {
		return nil, "", err
	}
	cfg := embed.NewConfig()
	cfg.Name = "e2e"
	cfg.Dir = dir
	cfg.LogLevel = "error"
	cfg.UnsafeNoFsync = true
	client := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(clientPort))}
	peer := url.URL{Scheme: "http", Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(peerPort))}
	cfg.ListenClientUrls = []url.URL{client}
	cfg.AdvertiseClientUrls = []url.URL{client}
	cfg.ListenPeerUrls = []url.URL{peer}
	cfg.AdvertisePeerUrls = []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, "", err
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, client.String(), nil
	case err := <-e.Err():
		e.Close()
		return nil, "", err
	case <-time.After(60 * time.Second):
		e.Close()
		return nil, "", errors.New("not ready within 60s")
	}
}

// startAPIServer configures kube-apiserver as its command would from these flags, but
// with a listener already bound to a free port (no race for the port).
func startAPIServer(ctx context.Context, dir, etcdURL string, extra []string) (*rest.Config, map[string]string, <-chan error, error) {
	certDir := filepath.Join(dir, "certs")
	if err := os.MkdirAll(certDir, 0o700); err != nil {
		return nil, nil, nil, err
	}
	saKey, err := writeServiceAccountKey(filepath.Join(certDir, "sa.key"))
	if err != nil {
		return nil, nil, nil, err
	}
	tokenFile := filepath.Join(certDir, "tokens.csv")
	tokens := map[string]string{}
	var csv strings.Builder
	for i, u := range users {
		token := randomToken()
		tokens[u.name] = token
		fmt.Fprintf(&csv, "%s,%s,%d,%q\n", token, u.name, 1000+i, u.group)
	}
	if err := os.WriteFile(tokenFile, []byte(csv.String()), 0o600); err != nil {
		return nil, nil, nil, err
	}

	s := options.NewServerRunOptions()
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	for _, f := range s.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, nil, err
	}
	s.SecureServing.Listener = listener
	s.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
	s.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")
	s.SecureServing.ServerCert.CertDirectory = certDir
	args := append([]string{
		"--etcd-servers=" + etcdURL,
		"--service-cluster-ip-range=10.0.0.0/16",
		"--token-auth-file=" + tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		// MutatingAdmissionWebhook and ValidatingAdmissionWebhook are on by default.
	}, extra...)
	if err := fs.Parse(args); err != nil {
		return nil, nil, nil, err
	}
	if err := s.GenericServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, nil, nil, err
	}
	rest.SetDefaultWarningHandler(rest.NoWarnings{})
	completed, err := s.Complete(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return nil, nil, nil, utilerrors.NewAggregate(errs)
	}
	config, err := app.NewConfig(completed)
	if err != nil {
		return nil, nil, nil, err
	}
	cc, err := config.Complete()
	if err != nil {
		return nil, nil, nil, err
	}
	chain, err := app.CreateServerChain(cc)
	if err != nil {
		return nil, nil, nil, err
	}
	prepared, err := chain.PrepareRun()
	if err != nil {
		return nil, nil, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- prepared.Run(ctx) }()

	caData, err := os.ReadFile(filepath.Join(certDir, "apiserver.crt"))
	if err != nil {
		return nil, nil, nil, err
	}
	server := &rest.Config{
		Host:            "https://" + listener.Addr().String(),
		BearerToken:     tokens[users[0].name],
		TLSClientConfig: rest.TLSClientConfig{CAData: caData},
	}
	return server, tokens, done, nil
}

// waitReady polls /readyz as the admin until it answers ok, then waits for the default
// namespace (created by a controller after readiness).
func waitReady(ctx context.Context, server *rest.Config, done <-chan error) error {
	transport, err := rest.TransportFor(server)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: transport, Timeout: 5 * time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for _, path := range []string{"/readyz", "/api/v1/namespaces/default"} {
		for {
			select {
			case err := <-done:
				return fmt.Errorf("kube-apiserver stopped while starting: %v", err)
			case <-ctx.Done():
				return ctx.Err()
			default:
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("kube-apiserver: %s not ok within 2 minutes", path)
			}
			resp, err := client.Get(server.Host + path)
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// writeKubeconfig writes one context per user; the current one is the admin.
func writeKubeconfig(path string, server *rest.Config, tokens map[string]string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: server.Host, CertificateAuthorityData: server.CAData}
	for _, u := range users {
		cfg.AuthInfos[u.name] = &clientcmdapi.AuthInfo{Token: tokens[u.name]}
		cfg.Contexts[u.name] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: u.name, Namespace: "default"}
	}
	cfg.CurrentContext = users[0].name
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Written to a temporary name and renamed, so a reader never sees half a file.
	tmp := path + ".tmp"
	if err := clientcmd.WriteToFile(*cfg, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeServiceAccountKey(path string) (string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

func randomToken() string {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return fmt.Sprintf("%x", b)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// setupKlog sends the API server's logs to stderr at the given verbosity.
func setupKlog(v int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("v", strconv.Itoa(v))
	_ = fs.Set("logtostderr", "true")
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
