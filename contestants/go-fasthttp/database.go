package main

import (
	"encoding/json"

	"github.com/valyala/fasthttp"

	"shootout/contestants/_go/database"
)

// serveDatabase adds TechEmpower's database tests to r, on db's pool.
func serveDatabase(r routes, db *database.DB) {
	r.exact["/db"] = get(func(ctx *fasthttp.RequestCtx) {
		row, err := db.Row(ctx)
		answerJSON(ctx, row, err)
	})
	r.exact["/queries"] = get(func(ctx *fasthttp.RequestCtx) {
		rows, err := db.Rows(ctx, database.Count(string(ctx.QueryArgs().Peek("q"))))
		answerJSON(ctx, rows, err)
	})
	r.exact["/updates"] = get(func(ctx *fasthttp.RequestCtx) {
		rows, err := db.Update(ctx, database.Count(string(ctx.QueryArgs().Peek("q"))))
		answerJSON(ctx, rows, err)
	})
	r.exact["/fortunes"] = get(func(ctx *fasthttp.RequestCtx) {
		if err := db.Fortunes(ctx, ctx); err != nil {
			ctx.ResetBody()
			ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
			return
		}
		ctx.SetContentType("text/html; charset=utf-8")
	})
}

// answerJSON: value encoded by encoding/json, or a 500 saying what failed.
func answerJSON(ctx *fasthttp.RequestCtx, value any, err error) {
	if err != nil {
		ctx.Error(err.Error(), fasthttp.StatusInternalServerError)
		return
	}
	ctx.SetContentType("application/json")
	json.NewEncoder(ctx).Encode(value)
}
