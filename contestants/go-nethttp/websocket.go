package main

// GET /ws: a WebSocket echo on gorilla/websocket, as Go's users most often pick it. Each
// text or binary message comes back as it came (ReadMessage and WriteMessage, as
// gorilla's own echo example); gorilla answers pings and the client's close (echoing
// its code) by its default handlers. A GET without Upgrade gets gorilla's 400.

import (
	"net/http"

	"github.com/gorilla/websocket"
)

var upgrader = websocket.Upgrader{
	ReadBufferSize:  4096,
	WriteBufferSize: 4096,
	// A load generator sends no Origin; the check is a browser's concern.
	CheckOrigin: func(*http.Request) bool { return true },
}

func echo(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered with a 4xx
	}
	defer c.Close()
	for {
		kind, message, err := c.ReadMessage()
		if err != nil {
			return // a close (answered by gorilla), or a broken connection
		}
		if err := c.WriteMessage(kind, message); err != nil {
			return
		}
	}
}
