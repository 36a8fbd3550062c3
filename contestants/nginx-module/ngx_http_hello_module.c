/*
 * ngx_http_hello_module: the "C hello module" of the 2009 article, as an nginx
 * dynamic module.
 *
 *   location = /hello { hello_world; }  ->  200 "Hello World"
 *   location = /app   { hello_app; }    ->  waits 95-105 ms on an nginx timer
 *                                           (the worker's event loop keeps
 *                                           running), then 200 with 1024 bytes
 */

#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>


static char *ngx_http_hello_world(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);
static char *ngx_http_hello_app(ngx_conf_t *cf, ngx_command_t *cmd,
    void *conf);


static ngx_command_t  ngx_http_hello_commands[] = {

    { ngx_string("hello_world"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_hello_world,
      0,
      0,
      NULL },

    { ngx_string("hello_app"),
      NGX_HTTP_LOC_CONF|NGX_CONF_NOARGS,
      ngx_http_hello_app,
      0,
      0,
      NULL },

      ngx_null_command
};


static ngx_http_module_t  ngx_http_hello_module_ctx = {
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
};


ngx_module_t  ngx_http_hello_module = {
    NGX_MODULE_V1,
    &ngx_http_hello_module_ctx,
    ngx_http_hello_commands,
    NGX_HTTP_MODULE,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    NGX_MODULE_V1_PADDING
};


static u_char  ngx_http_hello_text[] = "Hello World";
static u_char  ngx_http_hello_app_body[1024];   /* filled at config time */


/* Sends a 200 text/plain response whose body is the static buffer body. */
static ngx_int_t
ngx_http_hello_send(ngx_http_request_t *r, u_char *body, size_t len)
{
    ngx_int_t     rc;
    ngx_buf_t    *b;
    ngx_chain_t   out;

    r->headers_out.status = NGX_HTTP_OK;
    r->headers_out.content_length_n = len;
    ngx_str_set(&r->headers_out.content_type, "text/plain");
    r->headers_out.content_type_len = r->headers_out.content_type.len;

    rc = ngx_http_send_header(r);
    if (rc == NGX_ERROR || rc > NGX_OK || r->header_only) {
        return rc;
    }

    b = ngx_calloc_buf(r->pool);
    if (b == NULL) {
        return NGX_ERROR;
    }

    b->pos = body;
    b->last = body + len;
    b->memory = 1;           /* read-only memory: never copied, never freed */
    b->last_buf = 1;

    out.buf = b;
    out.next = NULL;

    return ngx_http_output_filter(r, &out);
}


static ngx_int_t
ngx_http_hello_world_handler(ngx_http_request_t *r)
{
    ngx_int_t  rc;

    if (!(r->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))) {
        return NGX_HTTP_NOT_ALLOWED;
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    return ngx_http_hello_send(r, ngx_http_hello_text,
                               sizeof(ngx_http_hello_text) - 1);
}


/* The /app timer fired: answer, and end the request. */
static void
ngx_http_hello_app_wake(ngx_event_t *ev)
{
    ngx_connection_t    *c;
    ngx_http_request_t  *r;

    r = ev->data;
    c = r->connection;

    ngx_http_finalize_request(r,
        ngx_http_hello_send(r, ngx_http_hello_app_body,
                            sizeof(ngx_http_hello_app_body)));

    /* as every event handler that finalizes a request must */
    ngx_http_run_posted_requests(c);
}


/*
 * Runs when the request's pool is freed: if the client went away before the
 * timer fired, the timer must not fire on a freed request.
 */
static void
ngx_http_hello_app_cleanup(void *data)
{
    ngx_event_t  *ev = data;

    if (ev->timer_set) {
        ngx_del_timer(ev);
    }
}


static ngx_int_t
ngx_http_hello_app_handler(ngx_http_request_t *r)
{
    ngx_int_t            rc;
    ngx_event_t         *ev;
    ngx_pool_cleanup_t  *cln;

    if (!(r->method & (NGX_HTTP_GET|NGX_HTTP_HEAD))) {
        return NGX_HTTP_NOT_ALLOWED;
    }

    rc = ngx_http_discard_request_body(r);
    if (rc != NGX_OK) {
        return rc;
    }

    ev = ngx_pcalloc(r->pool, sizeof(ngx_event_t));
    cln = ngx_pool_cleanup_add(r->pool, 0);
    if (ev == NULL || cln == NULL) {
        return NGX_HTTP_INTERNAL_SERVER_ERROR;
    }

    ev->handler = ngx_http_hello_app_wake;
    ev->data = r;
    ev->log = r->connection->log;
    cln->handler = ngx_http_hello_app_cleanup;
    cln->data = ev;

    ngx_add_timer(ev, 95 + ngx_random() % 11);

    /* notice a client that closes while we wait (as upstream does) */
    r->read_event_handler = ngx_http_test_reading;

    /*
     * Keep the request alive past this handler: NGX_DONE drops the extra
     * reference, the final one is dropped by the finalize in the wake handler.
     */
    r->main->count++;

    return NGX_DONE;
}


static char *
ngx_http_hello_world(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_core_loc_conf_t  *clcf;

    (void) cmd;
    (void) conf;

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    clcf->handler = ngx_http_hello_world_handler;

    return NGX_CONF_OK;
}


static char *
ngx_http_hello_app(ngx_conf_t *cf, ngx_command_t *cmd, void *conf)
{
    ngx_http_core_loc_conf_t  *clcf;

    (void) cmd;
    (void) conf;

    ngx_memset(ngx_http_hello_app_body, 'x', sizeof(ngx_http_hello_app_body));

    clcf = ngx_http_conf_get_module_loc_conf(cf, ngx_http_core_module);
    clcf->handler = ngx_http_hello_app_handler;

    return NGX_CONF_OK;
}
