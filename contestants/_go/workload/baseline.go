package workload

import "strconv"

// Sum is the baseline's answer: the numbers a and b, wherever the framework found them
// (query or form body); one that is missing or not a number counts as 0.
func Sum(a, b string) string {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return strconv.FormatInt(x+y, 10)
}
