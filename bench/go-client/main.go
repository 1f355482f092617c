// Command go-client posts over-limit bodies to a running Duckbill with Go's net/http client, as the API
// server's webhook client does, and counts how often the client reads the refusal versus a transport error
// (`write: broken pipe`, `connection reset`). Issue [13]: every try must read the refusal: 400 when Duckbill
// answers as Knative 1.23 or later (knative.dev/pkg reads the body through http.MaxBytesReader), 413 as 1.17.
//
//	go run ./bench/go-client -addr 127.0.0.1:8443 -ca certs/ca.crt -tries 50 -sizes 3.1,4,8,50 [-status 413]
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8443", "host:port of duckbill serve")
	caFile := flag.String("ca", "certs/ca.crt", "CA bundle to trust")
	tries := flag.Int("tries", 50, "requests per size")
	sizes := flag.String("sizes", "3.1,4,8,50", "body sizes in MiB")
	status := flag.Int("status", http.StatusBadRequest, "the refusal's status: 400 (Knative 1.23 and later, the default release) or 413 (--knative-version 1.17)")
	flag.Parse()
	pem, err := os.ReadFile(*caFile)
	if err != nil {
		panic(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	failed := 0
	for _, s := range strings.Split(*sizes, ",") {
		mib, err := strconv.ParseFloat(s, 64)
		if err != nil {
			panic(err)
		}
		body := bytes.Repeat([]byte(" "), int(mib*1024*1024))
		refused, transport, other := 0, 0, 0
		var firstErr error
		for i := 0; i < *tries; i++ {
			resp, err := client.Post("https://"+*addr+"/defaulting", "application/json", bytes.NewReader(body))
			if err != nil {
				transport++
				if firstErr == nil {
					firstErr = err
				}
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == *status {
				refused++
			} else {
				other++
			}
		}
		failed += transport + other
		fmt.Printf("%s MiB: %d/%d read %d, %d transport errors, %d other statuses", s, refused, *tries, *status, transport, other)
		if firstErr != nil {
			fmt.Printf(" (first error: %v)", firstErr)
		}
		fmt.Println()
	}
	if failed > 0 {
		os.Exit(1)
	}
}
