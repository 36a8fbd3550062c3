#!/bin/sh
# usage: start.sh BUILD PORT THREADS
# Renders nginx.conf.in for this port and worker count, then becomes nginx
# (exec: the process shootout started is the nginx master).
set -eu
PATH=$PATH:/usr/sbin:/sbin   # nginx lives in /usr/sbin
build=$1 port=$2 threads=$3
run=$build/run-$port   # one folder per port: instances never share pid or temp files
mkdir -p "$run/tmp"
user=""
# as root, nginx would switch workers to "nobody"; keep them as root instead
if [ "$(id -u)" = 0 ]; then user="user root;"; fi
sed -e "s|@USER@|$user|" -e "s|@THREADS@|$threads|" -e "s|@PORT@|$port|" \
    -e "s|@RUN@|$run|g" -e "s|@BUILD@|$build|g" \
    "$(dirname "$0")/nginx.conf.in" > "$run/nginx.conf"
exec nginx -p "$run/" -c "$run/nginx.conf"
