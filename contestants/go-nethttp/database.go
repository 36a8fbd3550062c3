package main

import (
	"bytes"
	"encoding/json"
	"net/http"

	"shootout/contestants/_go/database"
)

// serveDatabase adds TechEmpower's database tests to mux, on db's pool.
func serveDatabase(mux *http.ServeMux, db *database.DB) {
	mux.HandleFunc("GET /db", func(w http.ResponseWriter, r *http.Request) {
		row, err := db.Row(r.Context())
		answerJSON(w, row, err)
	})
	mux.HandleFunc("GET /queries", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.Rows(r.Context(), database.Count(r.URL.Query().Get("q")))
		answerJSON(w, rows, err)
	})
	mux.HandleFunc("GET /updates", func(w http.ResponseWriter, r *http.Request) {
		rows, err := db.Update(r.Context(), database.Count(r.URL.Query().Get("q")))
		answerJSON(w, rows, err)
	})
	mux.HandleFunc("GET /fortunes", func(w http.ResponseWriter, r *http.Request) {
		var page bytes.Buffer
		if err := db.Fortunes(r.Context(), &page); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page.Bytes())
	})
}

// answerJSON: value encoded by encoding/json, or a 500 saying what failed.
func answerJSON(w http.ResponseWriter, value any, err error) {
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(value)
}
