package database

import (
	"context"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Fortune is one row of Fortune.
type Fortune struct {
	ID      int32
	Message string
}

// fortunesPage is TechEmpower's page; html/template escapes each message.
var fortunesPage = template.Must(template.New("fortunes").Parse(`<!DOCTYPE html>
<html>
<head><title>Fortunes</title></head>
<body>
<table>
<tr><th>id</th><th>message</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>
{{end}}</table>
</body>
</html>
`))

// Fortunes writes the fortunes page to w: every row of Fortune and one added at request
// time, sorted by message.
func (db *DB) Fortunes(ctx context.Context, w io.Writer) error {
	rows, _ := db.pool.Query(ctx, "SELECT id, message FROM fortune")
	fortunes, err := pgx.CollectRows(rows, pgx.RowToStructByPos[Fortune])
	if err != nil {
		return err
	}
	fortunes = append(fortunes, Fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(fortunes, func(a, b Fortune) int {
		return strings.Compare(a.Message, b.Message)
	})
	return fortunesPage.Execute(w, fortunes)
}
