package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strconv"

	"shootout/contestants/_go/workload"
)

// serveWorkloads adds baseline, json, upload and static to mux, from the data in dir.
func serveWorkloads(mux *http.ServeMux, dir string) error {
	items, err := workload.Load(filepath.Join(dir, "items.json"))
	if err != nil {
		return err
	}
	mux.HandleFunc("/baseline", baseline)
	mux.HandleFunc("GET /json/{count}", func(w http.ResponseWriter, r *http.Request) {
		priced(w, r, items)
	})
	mux.HandleFunc("POST /upload", upload)
	mux.Handle("GET /static/", http.StripPrefix("/static", precompressed(filepath.Join(dir, "static"))))
	return nil
}

// baseline: a and b from the query (GET) or the form body (POST, by length or chunked).
func baseline(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, workload.Sum(r.Form.Get("a"), r.Form.Get("b")))
}

func priced(w http.ResponseWriter, r *http.Request, items workload.Dataset) {
	answer, ok := items.Priced(r.PathValue("count"), r.URL.Query().Get("m"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(answer)
}

// upload: the number of body bytes read.
func upload(w http.ResponseWriter, r *http.Request) {
	n, err := io.Copy(io.Discard, r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	io.WriteString(w, strconv.FormatInt(n, 10))
}
