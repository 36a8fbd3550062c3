#!/bin/bash
# usage: build.sh SRC_DIR BUILD_DIR
# Builds ngx_http_hello_module.so against the installed Debian nginx, the way
# Debian builds its own libnginx-mod-* packages (dh_nginx, nginx_mod.pm in the
# nginx-dev package): nginx's configure, run from the nginx source that
# nginx-dev installs in /usr/share/nginx/src, with the configure arguments of
# the nginx binary (conf_flags, a bash array: hence bash), then `make modules`.
# Every output goes to BUILD_DIR/objs; nothing is written to /usr/share.
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin   # nginx lives in /usr/sbin
src=$1 build=$2
ngx=/usr/share/nginx/src

installed=$(nginx -v 2>&1 | sed -n 's|^nginx version: nginx/||p')
headers=$(sed -n 's|^#define NGINX_VERSION *"\(.*\)"|\1|p' $ngx/src/core/nginx.h)
if [ "$installed" != "$headers" ]; then
    echo "nginx is $installed but nginx-dev has the sources of $headers" >&2
    exit 1
fi

cd $ngx
. ./conf_flags
./configure \
    --with-cc-opt="$(dpkg-buildflags --get CFLAGS) -fPIC $(dpkg-buildflags --get CPPFLAGS)" \
    --with-ld-opt="$(dpkg-buildflags --get LDFLAGS) -fPIC" \
    "${NGX_CONF_FLAGS[@]}" \
    --add-dynamic-module="$src" \
    --builddir="$build/objs"
make -f "$build/objs/Makefile" -C $ngx modules
cp "$build/objs/ngx_http_hello_module.so" "$build/"
