// go-fasthttp: the shootout hello/app server on github.com/valyala/fasthttp.
//
//   - GET /hello: 200 "Hello World" (11 bytes)
//   - GET /app: sleeps 100 ms ±5% (uniform), then 200 with 1024 bytes. fasthttp serves
//     each connection in its own goroutine, so time.Sleep parks only that goroutine.
//
// Parallelism comes from GOMAXPROCS (set by the manifest's start.env).
package main

import (
	"bytes"
	"flag"
	"log"
	"math/rand/v2"
	"time"

	"github.com/valyala/fasthttp"
)

var (
	helloBody = []byte("Hello World")
	appBody   = bytes.Repeat([]byte("a"), 1024)
)

func handler(ctx *fasthttp.RequestCtx) {
	if !ctx.IsGet() {
		ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
		return
	}
	switch string(ctx.Path()) {
	case "/hello":
		ctx.SetContentType("text/plain")
		ctx.SetBody(helloBody)
	case "/app":
		time.Sleep(95*time.Millisecond + rand.N(10*time.Millisecond+1))
		ctx.SetContentType("text/plain")
		ctx.SetBody(appBody)
	default:
		ctx.Error("Not Found", fasthttp.StatusNotFound)
	}
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	flag.Parse()

	srv := &fasthttp.Server{
		Handler: handler,
		Name:    "fasthttp",
		// fasthttp logs every connection that ends mid-request (a load generator
		// stopping does that to each of its connections); log nothing per connection.
		Logger: quiet{},
		// Default Concurrency (256k) is far above any load shootout sends.
	}
	log.Fatal(srv.ListenAndServe(*listen))
}
