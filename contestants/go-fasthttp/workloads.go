package main

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"

	"github.com/valyala/fasthttp"

	"shootout/contestants/_go/workload"
)

// serveWorkloads adds baseline, json, upload and static to r, from the data in dir.
func serveWorkloads(r routes, dir string) error {
	items, err := workload.Load(filepath.Join(dir, "items.json"))
	if err != nil {
		return err
	}
	r.exact["/baseline"] = baseline
	r.exact["/upload"] = upload
	r.prefixes["/json/"] = get(func(ctx *fasthttp.RequestCtx) { priced(ctx, items) })
	r.prefixes["/static/"] = get(static(filepath.Join(dir, "static")))
	return nil
}

// baseline: a and b from the query (GET) or the form body (POST, by length or chunked);
// FormValue looks in both.
func baseline(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/plain")
	ctx.SetBodyString(workload.Sum(string(ctx.FormValue("a")), string(ctx.FormValue("b"))))
}

func priced(ctx *fasthttp.RequestCtx, items workload.Dataset) {
	count := string(ctx.Path()[len("/json/"):])
	answer, ok := items.Priced(count, string(ctx.QueryArgs().Peek("m")))
	if !ok {
		ctx.Error("Not Found", fasthttp.StatusNotFound)
		return
	}
	ctx.SetContentType("application/json")
	json.NewEncoder(ctx).Encode(answer)
}

// upload: the number of body bytes read, from the stream (StreamRequestBody).
func upload(ctx *fasthttp.RequestCtx) {
	if !ctx.IsPost() {
		ctx.Error("Method Not Allowed", fasthttp.StatusMethodNotAllowed)
		return
	}
	n := int64(len(ctx.PostBody()))
	if stream := ctx.RequestBodyStream(); stream != nil {
		var err error
		if n, err = io.Copy(io.Discard, stream); err != nil {
			ctx.Error(err.Error(), fasthttp.StatusBadRequest)
			return
		}
	}
	ctx.SetContentType("text/plain")
	ctx.SetBodyString(strconv.FormatInt(n, 10))
}

// static is fasthttp's FS over dir for /static/NAME: its precompressed .br and .gz
// siblings serve a client that accepts them (the suffixes FS gives the files it
// compresses itself; FS takes the map only when it names all three of its encodings,
// else it falls back to its own .fasthttp.gz and writes those beside the corpus). Every
// text file of the corpus has both siblings and the images and the font are not
// compressible: FS writes nothing. No zstd: the corpus has no .zst siblings.
func static(dir string) fasthttp.RequestHandler {
	fs := &fasthttp.FS{
		Root:                   dir,
		PathRewrite:            fasthttp.NewPathSlashesStripper(1),
		Compress:               true,
		CompressBrotli:         true,
		CompressedFileSuffixes: map[string]string{"gzip": ".gz", "br": ".br", "zstd": ".zst"},
		AcceptByteRange:        true,
	}
	return fs.NewRequestHandler()
}
