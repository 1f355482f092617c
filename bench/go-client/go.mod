module duckbill.dev/bench/go-client

go 1.22
