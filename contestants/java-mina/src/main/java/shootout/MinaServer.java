package shootout;

import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Apache MINA 2 server in the manner of the 2009 shoot-out: it does not parse HTTP. When a
 * connection's first bytes arrive and begin with 'G', it writes one fixed response
 * ("Hello World", Content-Length 11, Connection: close) and closes once it is flushed.
 * The only thing that changes is the Date header, rebuilt once a second.
 * Usage: MinaServer PORT THREADS (THREADS = NioSocketAcceptor I/O processors).
 */
public final class MinaServer {

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME;

    private static volatile byte[] response = build();

    private static byte[] build() {
        String date = HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC));
        return ("HTTP/1.1 200 OK\r\n"
                + "Server: mina\r\n"
                + "Date: " + date + "\r\n"
                + "Content-Type: text/plain\r\n"
                + "Content-Length: 11\r\n"
                + "Connection: close\r\n"
                + "\r\n"
                + "Hello World").getBytes(StandardCharsets.US_ASCII);
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();

        ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "date");
            t.setDaemon(true);
            return t;
        });
        clock.scheduleAtFixedRate(() -> response = build(), 1, 1, TimeUnit.SECONDS);

        NioSocketAcceptor acceptor = new NioSocketAcceptor(threads);
        acceptor.setReuseAddress(true);
        acceptor.setBacklog(4096);
        acceptor.getSessionConfig().setTcpNoDelay(true);
        acceptor.setHandler(new IoHandlerAdapter() {
            @Override
            public void messageReceived(IoSession session, Object message) {
                if (session.isClosing()) {
                    return; // already answered: the rest of the request is not looked at
                }
                IoBuffer in = (IoBuffer) message;
                if (in.hasRemaining() && in.get(in.position()) == 'G') {
                    session.write(IoBuffer.wrap(response));
                    session.closeOnFlush();
                } else {
                    session.closeNow();
                }
            }

            @Override
            public void exceptionCaught(IoSession session, Throwable cause) {
                session.closeNow(); // resets and the like: log nothing per request
            }
        });
        acceptor.bind(new InetSocketAddress("127.0.0.1", port));
        System.err.println("java-mina listening on 127.0.0.1:" + port + " with " + threads
                + " I/O processor(s); answers without parsing HTTP");
    }
}
