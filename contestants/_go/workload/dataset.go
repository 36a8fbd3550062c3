// Package workload is the json workload's data for the Go contestants: the dataset of
// items (read once at start from {workloads}/items.json) and its pricing per request.
package workload

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// Item is one entry of items.json.
type Item struct {
	ID       int     `json:"id"`
	Name     string  `json:"name"`
	Price    float64 `json:"price"`
	Quantity int     `json:"quantity"`
}

// Priced is an item with its total for one request.
type Priced struct {
	Item
	Total float64 `json:"total"`
}

// Answer is the body of GET /json/{count}?m=M.
type Answer struct {
	Count int      `json:"count"`
	Items []Priced `json:"items"`
}

// Dataset is the items in the file's order.
type Dataset []Item

// Load reads the dataset from path (items.json).
func Load(path string) (Dataset, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("json workload: reading the dataset: %w", err)
	}
	var d Dataset
	if err := json.Unmarshal(text, &d); err != nil {
		return nil, fmt.Errorf("json workload: %s: %w", path, err)
	}
	return d, nil
}

// Priced is the answer for the path's count and the query's m: the first count items
// (at most all of them), each with total = price * quantity * m. ok is false when count
// is not a number.
func (d Dataset) Priced(count string, m string) (answer Answer, ok bool) {
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return Answer{}, false
	}
	n = min(n, len(d))
	factor, err := strconv.ParseFloat(m, 64)
	if err != nil {
		factor = 1
	}
	items := make([]Priced, n)
	for i, item := range d[:n] {
		items[i] = Priced{Item: item, Total: item.Price * float64(item.Quantity) * factor}
	}
	return Answer{Count: n, Items: items}, true
}
