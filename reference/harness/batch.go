package harness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"knative.dev/pkg/logging"
	"knative.dev/pkg/network/handlers"
	"knative.dev/pkg/webhook"
)

// maxLine bounds one input line (the webhook itself reads bodies of any size in 1.17, 3 MiB in later releases).
const maxLine = 256 << 20

// answerLine is one output line: `{name, httpStatus, review}` when Knative answered 200 with a JSON body (an
// AdmissionReview), `{name, httpStatus, body}` otherwise, `{name, httpStatus: 0, body: "", panic}` when the handler
// panicked; `{line, error}` for an input line that is not a request.
type answerLine struct {
	Name       json.RawMessage `json:"name"`
	HTTPStatus int             `json:"httpStatus"`
	Review     json.RawMessage `json:"review,omitempty"`
	Body       *string         `json:"body,omitempty"`
	// Panic is set when Knative's handler panicked instead of answering (httpStatus 0): net/http would have
	// dropped the connection.
	Panic *string `json:"panic,omitempty"`
}

// serve runs the handler as net/http's server does, recovering a panic (returned) instead of dying.
func serve(handler http.Handler, w http.ResponseWriter, r *http.Request) (recovered any) {
	defer func() { recovered = recover() }()
	handler.ServeHTTP(w, r)
	return nil
}

type badLine struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

func runBatch(rel Release, logger *zap.SugaredLogger, in io.Reader, out io.Writer) error {
	ctx := logging.WithLogger(context.Background(), logger)
	b, err := build(ctx, rel, webhook.Options{ServiceName: "webhook", Port: 8443, SecretName: "webhook-certs"})
	if err != nil {
		return err
	}
	// The handler Webhook.Run serves (the drainer answers kubelet probes, then the webhook itself).
	handler := &handlers.Drainer{Inner: b.webhook}

	w := bufio.NewWriterSize(out, 1<<16)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	r := bufio.NewReaderSize(in, 1<<20)
	bad := 0
	for lineNo := 1; ; lineNo++ {
		text, readErr := readLine(r)
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return readErr
		}
		if len(bytes.TrimSpace(text)) > 0 {
			var line any
			answer, err := answerOne(handler, text)
			if err != nil {
				bad++
				line = badLine{Line: lineNo, Error: fmt.Sprintf("line %d: %v", lineNo, err)}
			} else {
				line = answer
			}
			if err := enc.Encode(line); err != nil {
				return err
			}
			// One answer per line as it is ready, so a caller can stream.
			if err := w.Flush(); err != nil {
				return err
			}
		}
		if errors.Is(readErr, io.EOF) {
			break
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d input lines were not requests", bad)
	}
	return nil
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxLine {
			return nil, fmt.Errorf("input line longer than %d bytes", maxLine)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// answerOne sends one vector line's request through handler, as an HTTP server hands it a request.
func answerOne(handler http.Handler, text []byte) (*answerLine, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(text, &fields); err != nil {
		return nil, err
	}
	if fields == nil {
		return nil, errors.New("a line must be a JSON object")
	}
	var path string
	if raw := fields["path"]; raw == nil || string(raw) == "null" || json.Unmarshal(raw, &path) != nil {
		return nil, errors.New(`"path" must be a string`)
	}
	contentType := "application/json"
	if raw, ok := fields["contentType"]; ok {
		if err := json.Unmarshal(raw, &contentType); err != nil || string(raw) == "null" {
			return nil, errors.New(`"contentType" must be a string`)
		}
	}
	configsHeader := ""
	if raw, ok := fields["configs"]; ok && string(raw) != "null" {
		var configs map[string]map[string]string
		if err := json.Unmarshal(raw, &configs); err != nil {
			return nil, fmt.Errorf(`"configs" must map ConfigMap names to string data: %v`, err)
		}
		compact, _ := json.Marshal(configs)
		configsHeader = string(compact)
	}
	// An absent review is an empty body; otherwise the review's JSON text as the line has it (every digit kept).
	var body []byte
	if raw, ok := fields["review"]; ok {
		body = raw
	}
	name := fields["name"]

	// The request line a client sends for this path; Go's server parses it the same way.
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("POST " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n")))
	if err != nil {
		// Go's server answers a request line it cannot parse with 400 and this body.
		msg := "400 Bad Request"
		return &answerLine{Name: name, HTTPStatus: http.StatusBadRequest, Body: &msg}, nil
	}
	req.RemoteAddr = "127.0.0.1:40000"
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Length", strconv.Itoa(len(body)))
	req.Body = io.NopCloser(bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if configsHeader != "" {
		req.Header.Set(ConfigsHeader, configsHeader)
	}

	rec := httptest.NewRecorder()
	if p := serve(handler, rec, req); p != nil {
		// Knative's handler crashed (e.g. an AdmissionReview without request): a server recovers, logs the panic and
		// drops the connection without an answer. Written as status 0, no body, and the panic.
		empty := ""
		msg := fmt.Sprint(p)
		return &answerLine{Name: name, HTTPStatus: 0, Body: &empty, Panic: &msg}, nil
	}
	res := rec.Result()
	got := rec.Body.Bytes()
	if res.StatusCode == http.StatusOK {
		if trimmed := bytes.TrimSpace(got); json.Valid(trimmed) && len(trimmed) > 0 && trimmed[0] == '{' {
			return &answerLine{Name: name, HTTPStatus: res.StatusCode, Review: trimmed}, nil
		}
	}
	s := string(got)
	return &answerLine{Name: name, HTTPStatus: res.StatusCode, Body: &s}, nil
}
