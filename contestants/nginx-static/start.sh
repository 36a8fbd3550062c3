#!/bin/sh
# usage: [WORKLOADS=DIR] start.sh BUILD PORT THREADS [CERT KEY | h2c]
# WORKLOADS: the folder of the workloads' data (/static/ serves its static/)
# Renders nginx.conf.in for this port and worker count, then becomes nginx
# (exec: the process shootout started is the nginx master).  Given a
# certificate and its key, the same server speaks TLS on the port (tls.conf.in),
# HTTP/1.1 and HTTP/2 by ALPN.  Given h2c, it speaks cleartext HTTP/2 with prior
# knowledge on the port, and HTTP/2 only: nginx 1.22's `listen ... http2`
# without ssl takes every connection for HTTP/2.
set -eu
PATH=$PATH:/usr/sbin:/sbin   # nginx lives in /usr/sbin
build=$1 port=$2 threads=$3 cert=${4:-} key=${5:-}
run=$build/run-$port   # one folder per port: instances never share pid or temp files
mkdir -p "$run/tmp"
protocols=""   # the listen line's ssl and http2
: > "$run/tls.conf"
if [ "$cert" = h2c ]; then
    protocols=" http2"
elif [ -n "$cert" ]; then
    protocols=" ssl http2"
    sed -e "s|@CERT@|$cert|" -e "s|@KEY@|$key|" \
        "$(dirname "$0")/tls.conf.in" > "$run/tls.conf"
fi
user=""
# as root, nginx would switch workers to "nobody"; keep them as root instead
if [ "$(id -u)" = 0 ]; then user="user root;"; fi
sed -e "s|@USER@|$user|" -e "s|@THREADS@|$threads|" -e "s|@PORT@|$port|" -e "s|@PROTOCOLS@|$protocols|" \
    -e "s|@RUN@|$run|g" -e "s|@BUILD@|$build|g" -e "s|@WORKLOADS@|${WORKLOADS:-$build/no-workloads}|g" \
    "$(dirname "$0")/nginx.conf.in" > "$run/nginx.conf"
exec nginx -p "$run/" -c "$run/nginx.conf"
