package main

import (
	"mime"
	"net/http"
	"path"
	"strings"
)

// encodings are the precompressed siblings a file may have, the smaller first.
var encodings = []struct{ name, suffix string }{{"br", ".br"}, {"gzip", ".gz"}}

// precompressed serves the files under dir with net/http's ServeContent (types by
// extension, Last-Modified, ranges), the file's .br or .gz sibling when the client
// accepts that encoding. Not http.FileServer itself: it redirects every request for
// index.html to its folder, and knows no precompressed siblings.
func precompressed(dir string) http.Handler {
	root := http.Dir(dir)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean("/" + r.URL.Path)
		h := w.Header()
		h.Set("Vary", "Accept-Encoding")
		for _, e := range encodings {
			if accepts(r, e.name) && serve(w, r, root, name, name+e.suffix) {
				return
			}
		}
		if !serve(w, r, root, name, name) {
			http.NotFound(w, r)
		}
	})
}

// serve answers with the file at stored, typed as name; false when there is no such file.
func serve(w http.ResponseWriter, r *http.Request, root http.Dir, name, stored string) bool {
	f, err := root.Open(stored)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.IsDir() {
		return false
	}
	h := w.Header()
	if stored != name {
		h.Set("Content-Encoding", encodingOf(stored))
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		h.Set("Content-Type", t)
	}
	http.ServeContent(w, r, name, info.ModTime(), f)
	return true
}

func encodingOf(stored string) string {
	for _, e := range encodings {
		if strings.HasSuffix(stored, e.suffix) {
			return e.name
		}
	}
	return ""
}

// accepts: whether Accept-Encoding names encoding (q=0 not told apart: no client here
// sends it).
func accepts(r *http.Request, encoding string) bool {
	for _, header := range r.Header.Values("Accept-Encoding") {
		for _, token := range strings.Split(header, ",") {
			coding, _, _ := strings.Cut(strings.TrimSpace(token), ";")
			if strings.EqualFold(coding, encoding) {
				return true
			}
		}
	}
	return false
}
