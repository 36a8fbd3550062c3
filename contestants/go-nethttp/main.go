// go-nethttp: the shootout server on Go's standard net/http.
//
//   - GET /hello: 200 "Hello World" (11 bytes)
//   - GET /app: sleeps 100 ms ±5% (uniform, in this request's goroutine), then 200 with 1024 bytes
//   - GET /ws: a WebSocket echo (websocket.go, gorilla/websocket)
//   - the workloads (workloads.go): /baseline, /json/{count}, /upload, /static/NAME
//   - with DATABASE_URL, TechEmpower's database tests (database.go): /db, /queries,
//     /fortunes, /updates, on pgx's pool
//
// Parallelism comes from GOMAXPROCS (set by the manifest's start.env).
// With -cert and -key it serves the same over TLS (ListenAndServeTLS: crypto/tls's
// defaults, TLS 1.2 and 1.3, session tickets on, ALPN h2 and http/1.1: net/http's own
// HTTP/2 for a client that picks h2).
// With -h2c it serves the same over cleartext HTTP/2 with prior knowledge, and HTTP/2
// only (net/http's Server.Protocols, Go 1.24 on: no Upgrade, no module beyond the
// standard library).
package main

import (
	"bytes"
	"context"
	"flag"
	"log"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"shootout/contestants/_go/database"
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
	h2c := flag.Bool("h2c", false, "serve cleartext HTTP/2 with prior knowledge instead of HTTP/1.1")
	workloads := flag.String("workloads", "", "the workloads' data folder (items.json, static/)")
	flag.Parse()

	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", hello)
	mux.HandleFunc("GET /app", app)
	mux.HandleFunc("GET /ws", echo)
	if *workloads != "" {
		if err := serveWorkloads(mux, *workloads); err != nil {
			log.Fatal(err)
		}
	}
	db, err := database.FromEnv(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	if db != nil {
		serveDatabase(mux, db)
	}

	srv := &http.Server{Addr: *listen, Handler: mux}
	if *h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	if *cert != "" {
		log.Fatal(srv.ListenAndServeTLS(*cert, *key))
	}
	log.Fatal(srv.ListenAndServe())
}
