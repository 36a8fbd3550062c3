package shootout;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.DefaultHttp2WindowUpdateFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2FrameStream;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.util.AsciiString;
import io.netty.util.CharsetUtil;
import io.netty.util.ReferenceCountUtil;

import java.io.IOException;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The same answers as the HTTP/1.1 {@link NettyServer.Handler} (the workload and database
 * endpoints by {@link Endpoints}), over HTTP/2: Netty's
 * Http2FrameCodec (the connection preface, SETTINGS, HPACK, flow control) and this handler
 * seeing every stream's frames on the connection's own channel, as Netty's frame-codec
 * hello-world example does (no child channel per stream). Streams are independent: a
 * delayed /app answers on its own stream while the others go on.
 */
final class Http2Handler extends ChannelInboundHandlerAdapter {
    private static final AsciiString GET = AsciiString.cached("GET");
    private static final AsciiString HEAD = AsciiString.cached("HEAD");
    private static final AsciiString HELLO_PATH = AsciiString.cached("/hello");
    private static final AsciiString APP_PATH = AsciiString.cached("/app");

    /** HTTP/2 on `pipeline`: the frame codec (server side), then this handler. */
    static void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(Http2FrameCodecBuilder.forServer().build(), new Http2Handler());
    }

    /** A request whose body is coming: what was read of it. */
    private static final class Reading {
        final Http2Headers headers;
        long bodyBytes;
        StringBuilder bodyText;

        Reading(Http2Headers headers) {
            this.headers = headers;
        }
    }

    /** The streams whose bodies are coming, by stream id. */
    private final Map<Integer, Reading> reading = new HashMap<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame) {
                request(ctx, (Http2HeadersFrame) msg);
            } else if (msg instanceof Http2DataFrame) {
                // Every body's bytes are given back to the connection's window, read or
                // not, or a client sending bodies would stall.
                Http2DataFrame data = (Http2DataFrame) msg;
                int bytes = data.initialFlowControlledBytes();
                if (bytes > 0) {
                    ctx.write(new DefaultHttp2WindowUpdateFrame(bytes).stream(data.stream()), ctx.voidPromise());
                }
                body(ctx, data);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void request(ChannelHandlerContext ctx, Http2HeadersFrame frame) {
        Http2Headers headers = frame.headers();
        CharSequence method = headers.method();
        CharSequence path = headers.path();
        boolean head = HEAD.contentEquals(method);
        boolean get = head || GET.contentEquals(method);
        Http2FrameStream stream = frame.stream();
        if (get && HELLO_PATH.contentEquals(path)) {
            respond(ctx, stream, HttpResponseStatus.OK, NettyServer.TEXT_PLAIN, NettyServer.HELLO, head, false);
        } else if (get && APP_PATH.contentEquals(path)) {
            long delay = ThreadLocalRandom.current().nextLong(95_000_000L, 105_000_001L);
            ctx.executor().schedule(
                    () -> respond(ctx, stream, HttpResponseStatus.OK, NettyServer.TEXT_PLAIN, NettyServer.APP, head, true),
                    delay, TimeUnit.NANOSECONDS);
        } else if (!frame.isEndStream() && Endpoints.readsBody(HttpMethod.valueOf(method.toString()), pathOf(path))) {
            Reading r = new Reading(headers);
            if (pathOf(path).equals("/baseline")) {
                r.bodyText = new StringBuilder();
            }
            reading.put(stream.id(), r);
        } else {
            answer(ctx, stream, headers, 0, null);
        }
    }

    private void body(ChannelHandlerContext ctx, Http2DataFrame data) {
        Reading r = reading.get(data.stream().id());
        if (r == null) {
            return;
        }
        r.bodyBytes += data.content().readableBytes();
        if (r.bodyText != null) {
            r.bodyText.append(data.content().toString(CharsetUtil.ISO_8859_1));
        }
        if (data.isEndStream()) {
            reading.remove(data.stream().id());
            answer(ctx, data.stream(), r.headers, r.bodyBytes, r.bodyText);
        }
    }

    /** A workload or database endpoint's answer on `stream`, now or once it is ready. */
    private static void answer(ChannelHandlerContext ctx, Http2FrameStream stream, Http2Headers headers,
                               long bodyBytes, CharSequence bodyText) {
        boolean head = HEAD.contentEquals(headers.method());
        CompletableFuture<Answer> answer = Endpoints.answer(HttpMethod.valueOf(headers.method().toString()),
                headers.path().toString(), headers.get(HttpHeaderNames.ACCEPT_ENCODING), bodyBytes, bodyText);
        if (answer.isDone()) {
            send(ctx, stream, answer.join(), head, false);
            return;
        }
        answer.whenComplete((a, failure) -> ctx.executor().execute(
                () -> send(ctx, stream, a != null ? a : Answer.failed(failure), head, true)));
    }

    /** `a` on `stream`; a file read whole into its DATA frame. */
    private static void send(ChannelHandlerContext ctx, Http2FrameStream stream, Answer a, boolean head,
                             boolean flush) {
        byte[] body = a.body;
        if (a.file != null) {
            try {
                body = Files.readAllBytes(a.file);
            } catch (IOException e) {
                ctx.close();
                return;
            }
        }
        respond(ctx, stream, a.status, a.type, body, head, flush, a.encoding);
    }

    private static String pathOf(CharSequence target) {
        String t = target.toString();
        int q = t.indexOf('?');
        return q < 0 ? t : t.substring(0, q);
    }

    private static void respond(ChannelHandlerContext ctx, Http2FrameStream stream, HttpResponseStatus status,
                                AsciiString type, byte[] body, boolean head, boolean flush) {
        respond(ctx, stream, status, type, body, head, flush, null);
    }

    /** The response on `stream`: its HEADERS, then its body in one DATA frame ending it. */
    private static void respond(ChannelHandlerContext ctx, Http2FrameStream stream, HttpResponseStatus status,
                                AsciiString type, byte[] body, boolean head, boolean flush, AsciiString encoding) {
        if (!ctx.channel().isActive()) {
            return;
        }
        Http2Headers headers = new DefaultHttp2Headers()
                .status(status.codeAsText())
                .set(HttpHeaderNames.SERVER, NettyServer.SERVER)
                .set(HttpHeaderNames.DATE, NettyServer.date())
                .set(HttpHeaderNames.CONTENT_TYPE, type)
                .set(HttpHeaderNames.CONTENT_LENGTH, body == NettyServer.HELLO ? NettyServer.HELLO_LEN
                        : body == NettyServer.APP ? NettyServer.APP_LEN : Integer.toString(body.length));
        if (encoding != null) {
            headers.set(HttpHeaderNames.CONTENT_ENCODING, encoding);
        }
        ctx.write(new DefaultHttp2HeadersFrame(headers, head).stream(stream), ctx.voidPromise());
        if (!head) {
            ctx.write(new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(body), true).stream(stream), ctx.voidPromise());
        }
        if (flush) {
            ctx.flush();
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
