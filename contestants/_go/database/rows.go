package database

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"

	"github.com/jackc/pgx/v5"
)

// Rows is n random World rows, each read by its own SELECT; the n SELECTs go out in one
// pgx batch (pipelined on one connection: one round trip).
func (db *DB) Rows(ctx context.Context, n int) ([]World, error) {
	rows := make([]World, n)
	batch := &pgx.Batch{}
	for i := range rows {
		batch.Queue(selectWorld, randomID()).QueryRow(func(r pgx.Row) error {
			return r.Scan(&rows[i].ID, &rows[i].RandomNumber)
		})
	}
	return rows, db.pool.SendBatch(ctx, batch).Close()
}

// Update is n random World rows, read as Rows reads them, each given a new random number
// that is written back: one UPDATE a row, in one batch (one round trip, one implicit
// transaction), in id order so that two requests' transactions never wait on each
// other's rows in opposite orders (a deadlock).
func (db *DB) Update(ctx context.Context, n int) ([]World, error) {
	rows, err := db.Rows(ctx, n)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		rows[i].RandomNumber = rand.Int32N(worldRows) + 1
	}
	ordered := slices.SortedStableFunc(slices.Values(rows), func(a, b World) int {
		return cmp.Compare(a.ID, b.ID)
	})
	batch := &pgx.Batch{}
	for _, w := range ordered {
		batch.Queue(updateWorld, w.RandomNumber, w.ID)
	}
	return rows, db.pool.SendBatch(ctx, batch).Close()
}
