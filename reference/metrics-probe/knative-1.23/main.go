// Command knative-1.23 prints the kn.webhook.handler.duration series Knative 1.23's webhook exposes to Prometheus.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.uber.org/zap"
	admissionv1 "k8s.io/api/admission/v1"
	"knative.dev/pkg/logging"
	knmetrics "knative.dev/pkg/observability/metrics"
	"knative.dev/pkg/observability/resource"
	"knative.dev/pkg/observability/semconv"
	"knative.dev/pkg/webhook"
)

// ctrl is an admission controller that allows or denies everything (the probe is about the metrics).
type ctrl struct {
	path  string
	allow bool
}

func (c ctrl) Path() string { return c.path }
func (c ctrl) Admit(ctx context.Context, r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	if c.allow {
		return &admissionv1.AdmissionResponse{Allowed: true}
	}
	return webhook.MakeErrorStatus("denied")
}
func (ctrl) ThisTypeDoesNotDependOnInformerState() {}

const review = `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u1","kind":{"group":"serving.knative.dev","version":"v1","kind":"Service"},"resource":{"group":"serving.knative.dev","version":"v1","resource":"services"},"namespace":"default","name":"hello","operation":"CREATE","userInfo":{"username":"a"},"object":{}}}`

// main answers two /defaulting reviews (allowed) and one /resource-validation review (denied) through the
// webhook's own handler, behind otelhttp and the http.route labeler as webhook.Run serves it, with the meter
// provider sharedmain builds for `metrics-protocol: prometheus`, and prints the webhook's series as scraped.
// Run with SYSTEM_NAMESPACE set (knative.dev/pkg observability/resource.Default reads it).
func main() {
	ctx := logging.WithLogger(context.Background(), zap.NewNop().Sugar())
	mp, err := knmetrics.NewMeterProvider(ctx, knmetrics.Config{Protocol: "prometheus", Endpoint: "127.0.0.1:19092"}, sdkmetric.WithResource(resource.Default("webhook")))
	if err != nil {
		panic(err)
	}
	ctx = webhook.WithOptions(ctx, webhook.Options{ServiceName: "webhook", Port: 8443, MeterProvider: mp})
	wh, err := webhook.New(ctx, []interface{}{ctrl{"/defaulting", true}, ctrl{"/resource-validation", false}})
	if err != nil {
		panic(err)
	}
	wh.InformersHaveSynced()
	h := otelhttp.NewHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		labeler, _ := otelhttp.LabelerFromContext(r.Context())
		labeler.Add(semconv.HTTPRoute(r.URL.Path))
		wh.ServeHTTP(w, r)
	}), "webhook", otelhttp.WithMeterProvider(mp))
	for _, p := range []string{"/defaulting", "/defaulting", "/resource-validation"} {
		req := httptest.NewRequest("POST", p, strings.NewReader(review))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
	time.Sleep(500 * time.Millisecond)
	resp, err := http.Get("http://127.0.0.1:19092/metrics")
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "kn_webhook_handler_duration") || strings.Contains(l, "target_info") {
			fmt.Println(l)
		}
	}
}
