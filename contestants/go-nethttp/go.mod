module shootout/contestants/go-nethttp

go 1.26

require (
	github.com/gorilla/websocket v1.5.3
	shootout/contestants/_go v0.0.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/pgx/v5 v5.12.0 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)

// The code the Go contestants share (the json dataset, the database tests): ../_go.
replace shootout/contestants/_go => ../_go
