// Package harness runs one Knative Serving release's admission webhook, wired by that release's
// reference/knative-<release>/main.go exactly as its cmd/webhook/main.go wires it, without a cluster:
// Kubernetes is client-go's fake clientset (a reactor accepts the PodSpec dry run's Pod creates), the
// ConfigMaps come with each request, and every answer goes through knative.dev/pkg/webhook's own
// handler, so the HTTP envelope (status codes, decode errors, 415, unknown paths) is Knative's.
//
//	--batch            JSON lines {name, path, configs?, contentType?, review} on stdin (the format of
//	                   `duckbill admit --batch` and of the conformance vectors), one
//	                   {name, httpStatus, review} or {name, httpStatus, body} line out each
//	--serve            HTTPS through knative.dev/pkg's Webhook.Run (Knative's TLS defaults, drainer, probes)
//	                   on --port with the certificate in --cert-dir
//
// See reference/README.md.
package harness

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"knative.dev/pkg/apis"
	fakekubeclient "knative.dev/pkg/client/injection/kube/client/fake"
	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/system"
	"knative.dev/pkg/webhook"

	// The informers the admission controllers and webhook.New fetch from the context, in their fake
	// (fake-clientset backed) variants, registered with injection.Fake.
	_ "knative.dev/pkg/client/injection/kube/informers/admissionregistration/v1/mutatingwebhookconfiguration/fake"
	_ "knative.dev/pkg/client/injection/kube/informers/admissionregistration/v1/validatingwebhookconfiguration/fake"
	_ "knative.dev/pkg/injection/clients/namespacedkube/informers/core/v1/secret/fake"
	_ "knative.dev/pkg/injection/clients/namespacedkube/informers/factory/fake"
)

// ConfigsHeader carries a request's ConfigMaps (the vector line's `configs`: name → data, as JSON). Batch mode
// sets it from `configs`; in server mode a client may send it. Without it a request sees every ConfigMap as on
// a fresh install (no keys but `_example`).
const ConfigsHeader = "X-Knative-Reference-Configs"

// Release is what a reference/knative-<release>/main.go hands to Main.
type Release struct {
	// Name is the Knative release ("1.17"), Serving the knative.dev/serving module version ("v0.44.1").
	Name, Serving string
	// Controllers are that release's admission controller constructors from cmd/webhook/main.go
	// (defaulting, resource validation, ConfigMap validation), called as sharedmain calls them.
	Controllers []injection.ControllerConstructor
	// BeforeWebhook runs what that release's sharedmain does before webhook.New, if anything
	// (1.17: webhook.RegisterMetrics).
	BeforeWebhook func(ctx context.Context)
}

// ContextDecorator is what cmd/webhook/main.go passes to the admission controllers: its config store, whose
// ToContext attaches the current configuration to each request's context.
type ContextDecorator interface {
	ToContext(ctx context.Context) context.Context
}

// NewStoreFunc makes one config store watching cmw, as cmd/webhook/main.go does:
//
//	store := apisconfig.NewStore(logging.FromContext(ctx).Named("config-store"))
//	store.WatchConfigs(cmw)
type NewStoreFunc func(ctx context.Context, cmw configmap.Watcher) ContextDecorator

// RequestStores stands in for main.go's single config store: one real store (made by NewStoreFunc) per
// distinct set of request ConfigMaps, chosen by the request's ConfigsHeader.
type RequestStores struct {
	ctx      context.Context
	newStore NewStoreFunc

	mu     sync.Mutex
	stores map[string]ContextDecorator
}

// maxStores bounds the cache (differential runs send many distinct configs); past it the cache starts over.
const maxStores = 4096

// PerRequestStore returns the store main.go's controller constructor would make, for per-request ConfigMaps.
func PerRequestStore(ctx context.Context, newStore NewStoreFunc) *RequestStores {
	return &RequestStores{ctx: ctx, newStore: newStore, stores: map[string]ContextDecorator{}}
}

// ToContext is the decorator handed to the admission controller: the store of this request's ConfigMaps.
func (s *RequestStores) ToContext(ctx context.Context) context.Context {
	header := ""
	if r := apis.GetHTTPRequest(ctx); r != nil {
		header = r.Header.Get(ConfigsHeader)
	}
	store, err := s.storeFor(header)
	if err != nil {
		// An unreadable header is the client's mistake, not something Knative would answer: fail loudly (net/http
		// recovers and drops the connection; batch mode checks configs before sending).
		panic(fmt.Sprintf("%s: %v", ConfigsHeader, err))
	}
	return store.ToContext(ctx)
}

func (s *RequestStores) storeFor(header string) (ContextDecorator, error) {
	configs := map[string]map[string]string{}
	if header != "" {
		if err := json.Unmarshal([]byte(header), &configs); err != nil {
			return nil, err
		}
	}
	keyBytes, err := json.Marshal(configs) // map keys sorted: one key per distinct set
	if err != nil {
		return nil, err
	}
	key := string(keyBytes)
	s.mu.Lock()
	defer s.mu.Unlock()
	if store, ok := s.stores[key]; ok {
		return store, nil
	}
	if len(s.stores) >= maxStores {
		s.stores = map[string]ContextDecorator{}
	}
	store, err := s.build(configs)
	if err != nil {
		return nil, err
	}
	s.stores[key] = store
	return store, nil
}

// build makes a store for one set of ConfigMaps. A ConfigMap the store cannot parse is a fatal error in Knative
// (UntypedStore.OnConfigChanged: the webhook exits at startup); here it fails the request instead of the process.
func (s *RequestStores) build(configs map[string]map[string]string) (store ContextDecorator, err error) {
	logger := logging.FromContext(s.ctx).Desugar().WithOptions(zap.WithFatalHook(zapcore.WriteThenPanic)).Sugar()
	defer func() {
		if p := recover(); p != nil {
			store, err = nil, fmt.Errorf("Knative would not start with these ConfigMaps: %v", p)
		}
	}()
	return s.newStore(logging.WithLogger(s.ctx, logger), fixedConfigMaps{data: configs, namespace: system.Namespace()}), nil
}

// fixedConfigMaps is a configmap.Watcher over one request's ConfigMaps: a listed one has exactly the given data,
// any other one is empty (a fresh install's ConfigMaps hold only `_example`, which no store reads). Observers are
// called at once, as configmap.StaticWatcher does.
type fixedConfigMaps struct {
	data      map[string]map[string]string
	namespace string
}

var _ configmap.Watcher = fixedConfigMaps{}

func (w fixedConfigMaps) Watch(name string, observers ...configmap.Observer) {
	data := w.data[name]
	if data == nil {
		data = map[string]string{}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.namespace}, Data: data}
	for _, o := range observers {
		o(cm.DeepCopy())
	}
}

func (fixedConfigMaps) Start(<-chan struct{}) error { return nil }

// Main runs a release's reference: parses the flags, builds the webhook and serves batch or HTTPS.
func Main(rel Release) {
	flags := flag.NewFlagSet("knative-reference", flag.ExitOnError)
	batch := flags.Bool("batch", false, "answer JSON lines from stdin (duckbill admit --batch format)")
	serve := flags.Bool("serve", false, "serve HTTPS through knative.dev/pkg's Webhook.Run")
	port := flags.Int("port", 8443, "--serve: HTTPS port")
	certDir := flags.String("cert-dir", "", "--serve: directory with tls.crt and tls.key (or server-cert.pem and server-key.pem)")
	logLevel := flags.String("log-level", "", "zap level: debug, info, warn, error, dpanic, panic, fatal (default: info with --serve, error with --batch)")
	version := flags.Bool("version", false, "print the release and exit")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "knative-reference (Knative %s, knative.dev/serving %s)\n\n"+
			"  --batch [--log-level L]                       < vector lines > answer lines\n"+
			"  --serve --port P --cert-dir D [--log-level L]\n\n", rel.Name, rel.Serving)
		flags.PrintDefaults()
	}
	_ = flags.Parse(os.Args[1:])
	if *version {
		fmt.Printf("knative %s (knative.dev/serving %s)\n", rel.Name, rel.Serving)
		return
	}
	if *batch == *serve {
		fmt.Fprintln(os.Stderr, "knative-reference: exactly one of --batch and --serve")
		flags.Usage()
		os.Exit(2)
	}
	if os.Getenv(system.NamespaceEnvKey) == "" {
		os.Setenv(system.NamespaceEnvKey, "knative-serving")
	}

	level := *logLevel
	if level == "" {
		level = "info"
		if *batch {
			level = "error"
		}
	}
	// stdout carries the answers in batch mode, so logs go to stderr there.
	logOut := "stdout"
	if *batch {
		logOut = "stderr"
	}
	logger, _ := logging.NewLogger(zapConfig(logOut), level)
	defer func() { _ = logger.Sync() }()

	var err error
	if *batch {
		err = runBatch(rel, logger, os.Stdin, os.Stdout)
	} else {
		err = runServe(rel, logger, *port, *certDir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "knative-reference:", err)
		os.Exit(1)
	}
}

// zapConfig is the zap-logger-config of Knative's config-logging ConfigMap (config/core/configmaps/logging.yaml),
// writing to out.
func zapConfig(out string) string {
	return `{
  "level": "info",
  "development": false,
  "outputPaths": ["` + out + `"],
  "errorOutputPaths": ["stderr"],
  "encoding": "json",
  "encoderConfig": {
    "timeKey": "timestamp",
    "levelKey": "severity",
    "nameKey": "logger",
    "callerKey": "caller",
    "messageKey": "message",
    "stacktraceKey": "stacktrace",
    "lineEnding": "",
    "levelEncoder": "",
    "timeEncoder": "iso8601",
    "durationEncoder": "",
    "callerEncoder": ""
  }
}`
}

// built is a release's webhook, ready to answer.
type built struct {
	webhook *webhook.Webhook
	ctx     context.Context
}

// build does what sharedmain.WebhookMainWithContext does for the release's constructors, against a fake cluster:
// injection (fake clients and informers), the constructors, webhook.New, informers started and synced.
// objects are put in the fake cluster first (the certificate Secret in server mode).
func build(ctx context.Context, rel Release, opts webhook.Options, objects ...runtime.Object) (*built, error) {
	ctx = webhook.WithOptions(ctx, opts)
	ctx, informers := injection.Fake.SetupInformers(ctx, &rest.Config{})

	kube := fakekubeclient.Get(ctx)
	for _, o := range objects {
		if err := kube.Tracker().Add(o); err != nil {
			return nil, err
		}
	}
	// The PodSpec dry run (kubernetes.podspec-dryrun) creates a Pod with dryRun=All: the API server accepts it
	// and stores nothing.
	kube.PrependReactor("create", "pods", func(action k8stesting.Action) (bool, runtime.Object, error) {
		return true, action.(k8stesting.CreateAction).GetObject(), nil
	})

	// The constructors' own ConfigMap watcher; the config stores take theirs per request (PerRequestStore).
	cmw := fixedConfigMaps{namespace: system.Namespace()}
	var webhooks []interface{}
	for _, ctor := range rel.Controllers {
		impl := ctor(ctx, cmw)
		switch c := impl.Reconciler.(type) {
		case webhook.AdmissionController, webhook.ConversionController:
			webhooks = append(webhooks, c)
		}
	}
	if rel.BeforeWebhook != nil {
		rel.BeforeWebhook(ctx)
	}
	wh, err := webhook.New(ctx, webhooks)
	if err != nil {
		return nil, fmt.Errorf("webhook.New: %w", err)
	}
	if err := controller.StartInformers(ctx.Done(), informers...); err != nil {
		return nil, fmt.Errorf("starting informers: %w", err)
	}
	wh.InformersHaveSynced()
	return &built{webhook: wh, ctx: ctx}, nil
}
