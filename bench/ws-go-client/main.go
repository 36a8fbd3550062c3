// A WebSocket load client on gorilla/websocket, the library Go servers and clients most
// often use: the peer bench/ws-client-cost sets shootout against (k6, also Go, is under the
// AGPL and not used here; thor and Artillery run on Node). N connections, each keeping K
// text messages of 32 octets in flight: it writes K, then for each echo it reads, writes
// one more, as gorilla's own examples read and write (one goroutine a connection, which is
// gorilla's one reader and one writer). Run with GOMAXPROCS=1 to load from one core.
//
//	ws-go-client -url ws://127.0.0.1:8080/ws -c 50 -k 16 -d 5s
//	    -> prints the echoes it counted
package main

import (
	"flag"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

func main() {
	url := flag.String("url", "ws://127.0.0.1:8080/ws", "the echo endpoint")
	conns := flag.Int("c", 50, "connections")
	depth := flag.Int("k", 1, "messages in flight per connection")
	duration := flag.Duration("d", 5*time.Second, "how long to load")
	flag.Parse()

	message := []byte("abcdefghijklmnopqrstuvwxyzabcdef")
	all := make([]*websocket.Conn, *conns)
	for i := range all {
		c, _, err := websocket.DefaultDialer.Dial(*url, nil)
		if err != nil {
			log.Fatalf("connection %d: %v", i, err)
		}
		all[i] = c
	}
	var echoes atomic.Uint64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for _, c := range all {
		wg.Add(1)
		go func(c *websocket.Conn) {
			defer wg.Done()
			for i := 0; i < *depth; i++ {
				if err := c.WriteMessage(websocket.TextMessage, message); err != nil {
					log.Fatalf("write: %v", err)
				}
			}
			for !stop.Load() {
				if _, _, err := c.ReadMessage(); err != nil {
					return // closed at the end
				}
				echoes.Add(1)
				if err := c.WriteMessage(websocket.TextMessage, message); err != nil {
					return
				}
			}
		}(c)
	}
	time.Sleep(*duration)
	stop.Store(true)
	counted := echoes.Load()
	for _, c := range all {
		c.Close()
	}
	wg.Wait()
	fmt.Println(counted)
}
