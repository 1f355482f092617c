// Command go-client posts over-limit bodies to a running Duckbill with Go's net/http client, as the API
// server's webhook client does, and counts how often the client reads the 413 versus a transport error
// (`write: broken pipe`, `connection reset`). Issue [13]: every try must read the 413.
//
//	go run ./bench/go-client -addr 127.0.0.1:8443 -ca certs/ca.crt -tries 50 -sizes 3.1,4,8,50
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
		got413, transport, other := 0, 0, 0
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
			if resp.StatusCode == http.StatusRequestEntityTooLarge {
				got413++
			} else {
				other++
			}
		}
		failed += transport + other
		fmt.Printf("%s MiB: %d/%d read 413, %d transport errors, %d other statuses", s, got413, *tries, transport, other)
		if firstErr != nil {
			fmt.Printf(" (first error: %v)", firstErr)
		}
		fmt.Println()
	}
	if failed > 0 {
		os.Exit(1)
	}
}
