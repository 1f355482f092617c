package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"knative.dev/pkg/logging"
	"knative.dev/pkg/signals"
	"knative.dev/pkg/system"
	"knative.dev/pkg/webhook"
	"knative.dev/pkg/webhook/certificates/resources"
)

// certFiles are the file names accepted in --cert-dir: Duckbill's generated directory, or a mounted
// webhook-certs Secret.
var certFiles = [][2]string{{"tls.crt", "tls.key"}, {resources.ServerCert, resources.ServerKey}}

func readCert(dir string) (cert, key []byte, err error) {
	if dir == "" {
		return nil, nil, errors.New("--serve needs --cert-dir")
	}
	for _, names := range certFiles {
		cert, errC := os.ReadFile(filepath.Join(dir, names[0]))
		key, errK := os.ReadFile(filepath.Join(dir, names[1]))
		if errC == nil && errK == nil {
			return cert, key, nil
		}
	}
	return nil, nil, fmt.Errorf("%s holds neither tls.crt and tls.key nor %s and %s", dir, resources.ServerCert, resources.ServerKey)
}

// runServe serves HTTPS exactly as Knative's webhook does: webhook.Run with the certificate read from the
// webhook-certs Secret (here the fake cluster's, filled from --cert-dir), TLS 1.3 minimum unless
// WEBHOOK_TLS_MIN_VERSION says otherwise, HTTP/1.1 only, the drainer answering kubelet probes; SIGTERM drains.
func runServe(rel Release, logger *zap.SugaredLogger, port int, certDir string) error {
	cert, key, err := readCert(certDir)
	if err != nil {
		return err
	}
	const secretName = "webhook-certs"
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: secretName, Namespace: system.Namespace()},
		Data:       map[string][]byte{resources.ServerCert: cert, resources.ServerKey: key},
	}
	ctx := logging.WithLogger(signals.NewContext(), logger)
	b, err := build(ctx, rel, webhook.Options{ServiceName: "webhook", Port: port, SecretName: secretName}, secret)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "knative-reference: Knative %s (knative.dev/serving %s) serving HTTPS on :%d\n", rel.Name, rel.Serving, port)
	return b.webhook.Run(b.ctx.Done())
}
