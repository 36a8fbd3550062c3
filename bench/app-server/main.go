// A small net/http server for bench/devices: /app sleeps 100 ms ±5% (uniform) and
// returns 1 KiB, as the 2019 Stressgrid workload's server did; /hello answers at once.
// Standard library only, so it builds with no download.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math/rand"
	"net/http"
	"time"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:18200", "address to listen on (loopback)")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), 1024)
	http.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(time.Duration((95 + rand.Float64()*10) * float64(time.Millisecond)))
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(body)
	})
	http.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "Hello World")
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
