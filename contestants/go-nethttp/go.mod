module shootout/contestants/go-nethttp

go 1.26
