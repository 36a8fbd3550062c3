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
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The same answers as the HTTP/1.1 {@link NettyServer.Handler}, over HTTP/2: Netty's
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
    private static final byte[] NOT_FOUND = "Not Found".getBytes();

    /** HTTP/2 on `pipeline`: the frame codec (server side), then this handler. */
    static void addTo(ChannelPipeline pipeline) {
        pipeline.addLast(Http2FrameCodecBuilder.forServer().build(), new Http2Handler());
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Http2HeadersFrame) {
                request(ctx, (Http2HeadersFrame) msg);
            } else if (msg instanceof Http2DataFrame) {
                // A request body is not read, but its bytes are given back to the
                // connection's window, or a client sending bodies would stall.
                Http2DataFrame data = (Http2DataFrame) msg;
                int bytes = data.initialFlowControlledBytes();
                if (bytes > 0) {
                    ctx.write(new DefaultHttp2WindowUpdateFrame(bytes).stream(data.stream()), ctx.voidPromise());
                }
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
            respond(ctx, stream, HttpResponseStatus.OK, NettyServer.HELLO, head, false);
        } else if (get && APP_PATH.contentEquals(path)) {
            long delay = ThreadLocalRandom.current().nextLong(95_000_000L, 105_000_001L);
            ctx.executor().schedule(
                    () -> respond(ctx, stream, HttpResponseStatus.OK, NettyServer.APP, head, true),
                    delay, TimeUnit.NANOSECONDS);
        } else {
            respond(ctx, stream, HttpResponseStatus.NOT_FOUND, NOT_FOUND, head, false);
        }
    }

    /** The response on `stream`: its HEADERS, then its body in one DATA frame ending it. */
    private static void respond(ChannelHandlerContext ctx, Http2FrameStream stream, HttpResponseStatus status,
                                byte[] body, boolean head, boolean flush) {
        if (!ctx.channel().isActive()) {
            return;
        }
        Http2Headers headers = new DefaultHttp2Headers()
                .status(status.codeAsText())
                .set(HttpHeaderNames.SERVER, NettyServer.SERVER)
                .set(HttpHeaderNames.DATE, NettyServer.date())
                .set(HttpHeaderNames.CONTENT_TYPE, NettyServer.TEXT_PLAIN)
                .set(HttpHeaderNames.CONTENT_LENGTH, body == NettyServer.HELLO ? NettyServer.HELLO_LEN
                        : body == NettyServer.APP ? NettyServer.APP_LEN : Integer.toString(body.length));
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
