// Package database is TechEmpower's database tests for the Go contestants, on pgx
// (github.com/jackc/pgx/v5) and its pool: one random World row, N rows, N rows read and
// written back, and the Fortune table. The contestants wrap these in their own handlers.
package database

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is the pool of connections to the database the harness started.
type DB struct {
	pool *pgxpool.Pool
}

// World is one row of World, as the answers spell it.
type World struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

const (
	worldRows   = 10000
	mostQueries = 500
	defaultPool = 16
	selectWorld = "SELECT id, randomnumber FROM world WHERE id = $1"
	updateWorld = "UPDATE world SET randomnumber = $1 WHERE id = $2"
)

// FromEnv opens the pool DATABASE_URL names, DATABASE_POOL connections at most; nil
// (and no error) when DATABASE_URL is not set: the server then serves no database test.
func FromEnv(ctx context.Context) (*DB, error) {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return nil, nil
	}
	config, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	config.MaxConns = defaultPool
	if size := os.Getenv("DATABASE_POOL"); size != "" {
		n, err := strconv.Atoi(size)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("DATABASE_POOL %q: not a positive number", size)
		}
		config.MaxConns = int32(n)
	}
	pool, err := pgxpool.NewWithConfig(ctx, config)
	if err != nil {
		return nil, fmt.Errorf("connecting to DATABASE_URL: %w", err)
	}
	return &DB{pool: pool}, nil
}

// Count is the number of rows `q` asks for, by TechEmpower's rule: missing, not a
// number or below 1 is 1; above 500 is 500.
func Count(q string) int {
	n, err := strconv.Atoi(q)
	if err != nil {
		return 1
	}
	return min(max(n, 1), mostQueries)
}

func randomID() int32 {
	return rand.Int32N(worldRows) + 1
}

// Row is one random World row.
func (db *DB) Row(ctx context.Context) (World, error) {
	w := World{ID: randomID()}
	err := db.pool.QueryRow(ctx, selectWorld, w.ID).Scan(&w.ID, &w.RandomNumber)
	return w, err
}
