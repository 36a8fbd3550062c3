// go-fasthttp: the shootout server on github.com/valyala/fasthttp.
//
//   - GET /hello: 200 "Hello World" (11 bytes)
//   - GET /app: sleeps 100 ms ±5% (uniform), then 200 with 1024 bytes. fasthttp serves
//     each connection in its own goroutine, so time.Sleep parks only that goroutine.
//   - the workloads (workloads.go): /baseline, /json/{count}, /upload, /static/NAME
//   - with DATABASE_URL, TechEmpower's database tests (database.go): /db, /queries,
//     /fortunes, /updates, on pgx's pool
//
// Parallelism comes from GOMAXPROCS (set by the manifest's start.env).
package main

import (
	"bytes"
	"context"
	"flag"
	"log"
	"math/rand/v2"
	"time"

	"github.com/valyala/fasthttp"

	"shootout/contestants/_go/database"
)

var (
	helloBody = []byte("Hello World")
	appBody   = bytes.Repeat([]byte("a"), 1024)
)

// routes: the handler of each path (without its query), beside the prefixes of routes.
type routes struct {
	exact    map[string]fasthttp.RequestHandler
	prefixes map[string]fasthttp.RequestHandler
}

func (r routes) handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	if h, ok := r.exact[path]; ok {
		h(ctx)
		return
	}
	for prefix, h := range r.prefixes {
		if len(path) > len(prefix) && path[:len(prefix)] == prefix {
			h(ctx)
			return
		}
	}
	ctx.Error("Not Found", fasthttp.StatusNotFound)
}

// get wraps h: a request other than GET (or HEAD) is refused.
func get(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !ctx.IsGet() && !ctx.IsHead() {
			ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
			return
		}
		h(ctx)
	}
}

func hello(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain")
	ctx.SetBody(helloBody)
}

func app(ctx *fasthttp.RequestCtx) {
	time.Sleep(95*time.Millisecond + rand.N(10*time.Millisecond+1))
	ctx.SetContentType("text/plain")
	ctx.SetBody(appBody)
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

func main() {
	listen := flag.String("listen", "127.0.0.1:8080", "address to listen on")
	workloads := flag.String("workloads", "", "the workloads' data folder (items.json, static/)")
	flag.Parse()

	r := routes{
		exact:    map[string]fasthttp.RequestHandler{"/hello": get(hello), "/app": get(app)},
		prefixes: map[string]fasthttp.RequestHandler{},
	}
	if *workloads != "" {
		if err := serveWorkloads(r, *workloads); err != nil {
			log.Fatal(err)
		}
	}
	db, err := database.FromEnv(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	if db != nil {
		serveDatabase(r, db)
	}

	srv := &fasthttp.Server{
		Handler: r.handle,
		Name:    "fasthttp",
		// fasthttp logs every connection that ends mid-request (a load generator
		// stopping does that to each of its connections); log nothing per connection.
		Logger: quiet{},
		// Bodies beyond MaxRequestBodySize (4 MB by default) reach the handler as a
		// stream instead of being refused: /upload reads 20 MB ones.
		StreamRequestBody: true,
		// Default Concurrency (256k) is far above any load shootout sends.
	}
	log.Fatal(srv.ListenAndServe(*listen))
}
