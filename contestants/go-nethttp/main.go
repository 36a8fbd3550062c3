// go-nethttp: the shootout hello/app server on Go's standard net/http.
//
// GET /hello -> 200 "Hello World" (11 bytes)
// GET /app   -> sleeps 100 ms ±5% (uniform, in this request's goroutine), then 200 with 1024 bytes
//
// Parallelism comes from GOMAXPROCS (set by the manifest's start.env).
// With -cert and -key it serves the same over TLS (ListenAndServeTLS: crypto/tls's
// defaults, TLS 1.2 and 1.3, session tickets on, ALPN h2 and http/1.1).
package main

import (
	"bytes"
	"flag"
	"log"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"
)

var (
	helloBody = []byte("Hello World")
	appBody   = bytes.Repeat([]byte("a"), 1024)
	helloLen  = strconv.Itoa(len(helloBody))
	appLen    = strconv.Itoa(len(appBody))
)

func hello(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h["Content-Type"] = []string{"text/plain"}
	h["Content-Length"] = []string{helloLen}
	w.Write(helloBody)
}

func app(w http.ResponseWriter, r *http.Request) {
	// 95..105 ms, uniform; time.Sleep parks only this goroutine.
	time.Sleep(95*time.Millisecond + rand.N(10*time.Millisecond+1))
	h := w.Header()
	h["Content-Type"] = []string{"text/plain"}
	h["Content-Length"] = []string{appLen}
	w.Write(appBody)
}

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	cert := flag.String("cert", "", "certificate (PEM): serve TLS")
	key := flag.String("key", "", "its private key (PEM)")
	flag.Parse()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", hello)
	mux.HandleFunc("GET /app", app)

	srv := &http.Server{Addr: *listen, Handler: mux}
	if *cert != "" {
		log.Fatal(srv.ListenAndServeTLS(*cert, *key))
	}
	log.Fatal(srv.ListenAndServe())
}
