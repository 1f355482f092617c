// Command knative-1.17 prints the webhook_request_* series Knative 1.17's webhook exposes to Prometheus.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"go.uber.org/zap"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"knative.dev/pkg/metrics"
	"knative.dev/pkg/webhook"
)

// main reports five allowed requests (0, 1, 1.5, 2 and 5 ms) and one denied (0 ms) through knative.dev/pkg's
// StatsReporter with the views sharedmain registers and the Prometheus backend (config-observability's default),
// component "webhook" as serving's cmd/webhook/main.go names it, and prints the webhook_request_* series scraped.
func main() {
	os.Setenv("METRICS_DOMAIN", "knative.dev/internal/serving")
	webhook.RegisterMetrics()
	logger := zap.NewNop().Sugar()
	if err := metrics.UpdateExporter(context.Background(), metrics.ExporterOptions{Domain: metrics.Domain(), Component: "webhook", ConfigMap: map[string]string{}, PrometheusPort: 19091}, logger); err != nil {
		panic(err)
	}
	r, err := webhook.NewStatsReporter()
	if err != nil {
		panic(err)
	}
	req := &admissionv1.AdmissionRequest{Kind: metav1.GroupVersionKind{Group: "serving.knative.dev", Version: "v1", Kind: "Service"}, Resource: metav1.GroupVersionResource{Group: "serving.knative.dev", Version: "v1", Resource: "services"}, Namespace: "default", Operation: "CREATE"}
	for _, d := range []time.Duration{0, time.Millisecond, 1500 * time.Microsecond, 2 * time.Millisecond, 5 * time.Millisecond} {
		r.ReportAdmissionRequest(req, &admissionv1.AdmissionResponse{Allowed: true}, d)
	}
	r.ReportAdmissionRequest(req, &admissionv1.AdmissionResponse{Allowed: false}, 0)
	time.Sleep(7 * time.Second)
	resp, err := http.Get("http://127.0.0.1:19091/metrics")
	if err != nil {
		panic(err)
	}
	b, _ := io.ReadAll(resp.Body)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "webhook_request") {
			fmt.Println(l)
		}
	}
}
