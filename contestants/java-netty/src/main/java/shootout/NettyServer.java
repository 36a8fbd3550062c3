package shootout;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DateFormatter;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.CharsetUtil;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import java.io.File;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Date;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Netty 4.1 hello-world server for shootout.
 *
 * GET /hello -> "Hello World"; GET /ws -> a WebSocket echo ({@link WebSocketEcho}, in clear
 * text); GET /app -> 1024 bytes after 95-105 ms, the delay
 * being a timer on the connection's own event loop (ctx.executor().schedule),
 * so the loop never blocks. Usage: NettyServer PORT THREADS [CERT KEY | h2c] (THREADS =
 * worker event loops). Given a certificate and its key (PEM), the same server over TLS:
 * Netty's SslHandler on the JDK's own TLS (SslProvider.JDK), TLS 1.2 and 1.3, ALPN h2 and
 * http/1.1 (HTTP/2 by {@link Http2Handler} for a client that picks h2, the HTTP/1.1 codec
 * for any other), the JDK's session cache and (TLS 1.3) stateless tickets. Given h2c, the
 * same over cleartext HTTP/2 with prior knowledge ({@link Http2Handler} on every
 * connection: HTTP/2 only on the port).
 */
public final class NettyServer {

    static final byte[] HELLO = "Hello World".getBytes();
    static final byte[] APP = new byte[1024];
    static final byte[] NOT_FOUND = "Not Found".getBytes();
    static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
    static final AsciiString SERVER = AsciiString.cached("netty");
    static final AsciiString HELLO_LEN = AsciiString.cached(Integer.toString(HELLO.length));
    static final AsciiString APP_LEN = AsciiString.cached(Integer.toString(APP.length));

    static {
        Arrays.fill(APP, (byte) 'x');
    }

    /** The Date header, refreshed once a second by a timer on the boss loop. */
    private static volatile AsciiString date = new AsciiString(DateFormatter.format(new Date()));

    /** The Date header's value now. */
    static AsciiString date() {
        return date;
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        SslContext tls = args.length > 3 ? tls(new File(args[2]), new File(args[3])) : null;
        boolean h2c = args.length == 3 && args[2].equals("h2c");
        Endpoints.start(System.getProperty("shootout.workloads"));

        boolean epoll = Epoll.isAvailable();
        EventLoopGroup boss = epoll ? new EpollEventLoopGroup(1) : new NioEventLoopGroup(1);
        EventLoopGroup workers = epoll ? new EpollEventLoopGroup(threads) : new NioEventLoopGroup(threads);
        Class<? extends ServerChannel> channel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        try {
            boss.scheduleAtFixedRate(
                    () -> date = new AsciiString(DateFormatter.format(new Date())), 1, 1, TimeUnit.SECONDS);
            ServerBootstrap b = new ServerBootstrap()
                    .group(boss, workers)
                    .channel(channel)
                    .option(ChannelOption.SO_BACKLOG, 4096)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (tls != null) {
                                ch.pipeline().addLast(tls.newHandler(ch.alloc()), new Negotiated());
                            } else if (h2c) {
                                Http2Handler.addTo(ch.pipeline());
                            } else {
                                ch.pipeline().addLast(new HttpServerCodec(), new Handler());
                            }
                        }
                    });
            Channel ch = b.bind("127.0.0.1", port).sync().channel();
            System.err.println("java-netty listening on 127.0.0.1:" + port + " with " + threads
                    + " event loop(s), transport " + (epoll ? "epoll" : "nio")
                    + (tls != null ? ", TLS (JDK), ALPN h2 and http/1.1" : h2c ? ", h2c (prior knowledge)" : ""));
            ch.closeFuture().sync();
        } finally {
            boss.shutdownGracefully();
            workers.shutdownGracefully();
        }
    }

    /** The server's TLS: the JDK's provider, TLS 1.2 and 1.3, HTTP/2 and HTTP/1.1 by ALPN. */
    private static SslContext tls(File cert, File key) throws Exception {
        return SslContextBuilder.forServer(cert, key)
                .sslProvider(SslProvider.JDK)
                .protocols("TLSv1.3", "TLSv1.2")
                .applicationProtocolConfig(new ApplicationProtocolConfig(
                        ApplicationProtocolConfig.Protocol.ALPN,
                        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
                        ApplicationProtocolNames.HTTP_2,
                        ApplicationProtocolNames.HTTP_1_1))
                .build();
    }

    /**
     * Once the handshake is done, the codec of the protocol ALPN picked: HTTP/2, or HTTP/1.1
     * (also for a client that offered no ALPN at all).
     */
    static final class Negotiated extends ApplicationProtocolNegotiationHandler {
        Negotiated() {
            super(ApplicationProtocolNames.HTTP_1_1);
        }

        @Override
        protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
            if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                Http2Handler.addTo(ctx.pipeline());
            } else {
                ctx.pipeline().addLast(new HttpServerCodec(), new ChunkedWriteHandler(), new Handler());
            }
        }
    }

    /**
     * One per connection. Requests are answered in order: while an answer is pending (a
     * delayed /app, a database endpoint on the database's threads), later pipelined requests
     * wait in a queue. A body that an endpoint reads (/baseline's form, /upload's bytes) is
     * taken in as it arrives, counted and let go, never held whole.
     */
    static final class Handler extends ChannelInboundHandlerAdapter {
        private final ArrayDeque<Pending> queue = new ArrayDeque<>();
        private boolean waiting;
        private boolean closing;
        /** The request whose body is coming, or null. */
        private Pending reading;

        /** A request, with what was read of its body. */
        private static final class Pending {
            final HttpRequest req;
            long bodyBytes;
            StringBuilder bodyText;

            Pending(HttpRequest req) {
                this.req = req;
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof HttpRequest) {
                    head(ctx, (HttpRequest) msg);
                } else if (msg instanceof HttpContent && reading != null) {
                    body(ctx, (HttpContent) msg);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        private void head(ChannelHandlerContext ctx, HttpRequest req) {
            if (closing) {
                return;
            }
            if (req.decoderResult().isFailure()) {
                closing = true;
                FullHttpResponse resp = response(HttpResponseStatus.BAD_REQUEST, HttpVersion.HTTP_1_1, new byte[0], false);
                ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            String uri = req.uri();
            int q = uri.indexOf('?');
            if (Endpoints.readsBody(req.method(), q < 0 ? uri : uri.substring(0, q))) {
                reading = new Pending(req);
                if (uri.startsWith("/baseline")) {
                    reading.bodyText = new StringBuilder();
                }
                return;
            }
            submit(ctx, new Pending(req));
        }

        private void body(ChannelHandlerContext ctx, HttpContent content) {
            ByteBuf bytes = content.content();
            reading.bodyBytes += bytes.readableBytes();
            if (reading.bodyText != null) {
                reading.bodyText.append(bytes.toString(CharsetUtil.ISO_8859_1));
            }
            if (content instanceof LastHttpContent) {
                Pending whole = reading;
                reading = null;
                submit(ctx, whole);
            }
        }

        private void submit(ChannelHandlerContext ctx, Pending p) {
            if (waiting) {
                queue.add(p);
            } else {
                handle(ctx, p, false);
            }
        }

        private void handle(ChannelHandlerContext ctx, Pending p, boolean flush) {
            HttpRequest req = p.req;
            String uri = req.uri();
            boolean get = req.method() == HttpMethod.GET || req.method() == HttpMethod.HEAD;
            if (req.method() == HttpMethod.GET && uri.equals("/ws") && WebSocketEcho.asked(req)) {
                WebSocketEcho.upgrade(ctx, req, this);
            } else if (get && uri.equals("/hello")) {
                respond(ctx, req, HttpResponseStatus.OK, TEXT_PLAIN, HELLO, flush);
            } else if (get && uri.equals("/app")) {
                waiting = true;
                long delay = ThreadLocalRandom.current().nextLong(95_000_000L, 105_000_001L);
                ctx.executor().schedule(() -> {
                    waiting = false;
                    respond(ctx, req, HttpResponseStatus.OK, TEXT_PLAIN, APP, true);
                    drain(ctx);
                }, delay, TimeUnit.NANOSECONDS);
            } else {
                CompletableFuture<Answer> answer = Endpoints.answer(req.method(), uri,
                        req.headers().get(HttpHeaderNames.ACCEPT_ENCODING), p.bodyBytes, p.bodyText);
                if (answer.isDone()) {
                    send(ctx, req, answer.join(), flush);
                    return;
                }
                waiting = true;
                answer.whenComplete((a, failure) -> ctx.executor().execute(() -> {
                    waiting = false;
                    send(ctx, req, a != null ? a : Answer.failed(failure), true);
                    drain(ctx);
                }));
            }
        }

        /** The requests that waited behind an answer, until one has to wait again. */
        private void drain(ChannelHandlerContext ctx) {
            while (!waiting && !closing && !queue.isEmpty()) {
                handle(ctx, queue.poll(), true);
            }
        }

        private void send(ChannelHandlerContext ctx, HttpRequest req, Answer a, boolean flush) {
            if (a.file == null) {
                respond(ctx, req, a.status, a.type, a.body, flush);
            } else {
                sendFile(ctx, req, a);
            }
        }

        /**
         * A file as Netty's static-file example sends one: the head, then the file by
         * sendfile (a FileRegion) in clear text, or in chunks read by ChunkedWriteHandler
         * when TLS has to encrypt it.
         */
        private void sendFile(ChannelHandlerContext ctx, HttpRequest req, Answer a) {
            if (!ctx.channel().isActive()) {
                closing = true;
                queue.clear();
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            HttpResponse head = new DefaultHttpResponse(req.protocolVersion(), a.status);
            head.headers()
                    .set(HttpHeaderNames.SERVER, SERVER)
                    .set(HttpHeaderNames.DATE, date())
                    .set(HttpHeaderNames.CONTENT_TYPE, a.type)
                    .set(HttpHeaderNames.CONTENT_LENGTH, a.fileLength);
            if (a.encoding != null) {
                head.headers().set(HttpHeaderNames.CONTENT_ENCODING, a.encoding);
            }
            keepAlive(head, req.protocolVersion(), keepAlive);
            ctx.write(head, ctx.voidPromise());
            ChannelFuture last;
            if (req.method() == HttpMethod.HEAD) {
                last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            } else if (ctx.pipeline().get(SslHandler.class) == null) {
                ctx.write(new DefaultFileRegion(a.file.toFile(), 0, a.fileLength), ctx.voidPromise());
                last = ctx.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT);
            } else {
                try {
                    last = ctx.writeAndFlush(new HttpChunkedInput(new ChunkedNioFile(a.file.toFile())));
                } catch (java.io.IOException e) {
                    ctx.close();
                    return;
                }
            }
            if (!keepAlive) {
                closing = true;
                queue.clear();
                last.addListener(ChannelFutureListener.CLOSE);
            }
        }

        private void respond(ChannelHandlerContext ctx, HttpRequest req, HttpResponseStatus status,
                             AsciiString type, byte[] body, boolean flush) {
            if (!ctx.channel().isActive()) {
                closing = true;
                queue.clear();
                return;
            }
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            boolean head = req.method() == HttpMethod.HEAD;
            FullHttpResponse resp = response(status, req.protocolVersion(), head ? null : body, keepAlive);
            resp.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
            if (head) {
                resp.headers().set(HttpHeaderNames.CONTENT_LENGTH, body.length);
            }
            if (keepAlive) {
                if (flush) {
                    ctx.writeAndFlush(resp, ctx.voidPromise());
                } else {
                    ctx.write(resp, ctx.voidPromise());
                }
            } else {
                closing = true;
                queue.clear();
                ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
            }
        }

        private static FullHttpResponse response(HttpResponseStatus status, HttpVersion version,
                                                 byte[] body, boolean keepAlive) {
            ByteBuf content = body == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body);
            FullHttpResponse resp = new DefaultFullHttpResponse(version, status, content, false);
            resp.headers()
                    .set(HttpHeaderNames.SERVER, SERVER)
                    .set(HttpHeaderNames.DATE, date())
                    .set(HttpHeaderNames.CONTENT_TYPE, TEXT_PLAIN)
                    .set(HttpHeaderNames.CONTENT_LENGTH,
                            body == HELLO ? HELLO_LEN : body == APP ? APP_LEN : Integer.toString(content.readableBytes()));
            keepAlive(resp, version, keepAlive);
            return resp;
        }

        private static void keepAlive(HttpResponse resp, HttpVersion version, boolean keepAlive) {
            if (keepAlive) {
                if (version == HttpVersion.HTTP_1_0) {
                    resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                }
            } else {
                resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // resets and the like: close quietly, log nothing per request
        }
    }
}
