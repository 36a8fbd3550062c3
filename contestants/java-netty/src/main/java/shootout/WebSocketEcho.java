package shootout;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.util.ReferenceCountUtil;

/**
 * GET /ws: a WebSocket echo on Netty's own WebSocket codec (netty-codec-http's websocketx).
 * The handshake is WebSocketServerHandshakerFactory's, which swaps the HTTP codec for the
 * WebSocket frame decoder and encoder; this handler then takes the HTTP handler's place and
 * sends each text, binary or continuation frame back as it came (so a fragmented message
 * comes back in the same fragments), answers pings, and answers the client's close with
 * the same close (the handshaker's close, which then closes the connection).
 */
final class WebSocketEcho extends ChannelInboundHandlerAdapter {
    /** The longest frame accepted: far past any message a load sends. */
    private static final int MAX_FRAME = 16 << 20;

    private final WebSocketServerHandshaker handshaker;

    private WebSocketEcho(WebSocketServerHandshaker handshaker) {
        this.handshaker = handshaker;
    }

    /** True when req asks to upgrade to WebSocket. */
    static boolean asked(HttpRequest req) {
        return req.headers().containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true);
    }

    /**
     * Answers the upgrade of req and puts the echo in place of `http` (the HTTP handler of
     * the connection). The request has no body (a GET), so its head is the whole request.
     */
    static void upgrade(ChannelHandlerContext ctx, HttpRequest req, ChannelInboundHandlerAdapter http) {
        String location = "ws://" + req.headers().get(HttpHeaderNames.HOST, "localhost") + req.uri();
        WebSocketServerHandshakerFactory factory =
                new WebSocketServerHandshakerFactory(location, null, false, MAX_FRAME);
        WebSocketServerHandshaker handshaker = factory.newHandshaker(req);
        if (handshaker == null) {
            WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
            return;
        }
        DefaultFullHttpRequest whole = new DefaultFullHttpRequest(req.protocolVersion(), req.method(),
                req.uri(), Unpooled.EMPTY_BUFFER, req.headers(), EmptyHttpHeaders.INSTANCE);
        ctx.pipeline().replace(http, "ws-echo", new WebSocketEcho(handshaker));
        handshaker.handshake(ctx.channel(), whole);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame
                || msg instanceof ContinuationWebSocketFrame) {
            ctx.write(msg);
        } else if (msg instanceof PingWebSocketFrame) {
            ctx.write(new PongWebSocketFrame(((PingWebSocketFrame) msg).content()));
        } else if (msg instanceof CloseWebSocketFrame) {
            handshaker.close(ctx.channel(), (CloseWebSocketFrame) msg);
        } else {
            // The end of the upgrade request (HttpServerCodec's last content), and pongs.
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A protocol error: the decoder has sent its close; nothing more to say.
        ctx.close();
    }
}
