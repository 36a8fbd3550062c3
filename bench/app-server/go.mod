module shootout/bench/app-server

go 1.21
