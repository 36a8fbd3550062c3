package shootout;

import org.rapidoid.buffer.Buf;
import org.rapidoid.http.AbstractHttpServer;
import org.rapidoid.http.HttpStatus;
import org.rapidoid.http.MediaType;
import org.rapidoid.net.TCP;
import org.rapidoid.net.abstracts.Channel;
import org.rapidoid.net.impl.RapidoidHelper;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Rapidoid 5.5 (rapidoid-http-fast, its low-level HTTP API) hello-world server for shootout.
 *
 * GET /hello -> "Hello World". GET /app -> 1024 bytes after 95-105 ms: the request is
 * turned asynchronous (ctx.async(), HttpStatus.ASYNC), a timer thread fires after the delay
 * and resumes the connection (ctx.resume), which writes the response in request order; no
 * I/O worker ever sleeps. Usage: RapidoidServer PORT THREADS (THREADS = Rapidoid I/O workers).
 */
public final class RapidoidServer extends AbstractHttpServer {

    private static final byte[] HELLO_PATH = "/hello".getBytes();
    private static final byte[] APP_PATH = "/app".getBytes();
    private static final byte[] HELLO = "Hello World".getBytes();
    private static final byte[] APP = new byte[1024];

    static {
        Arrays.fill(APP, (byte) 'x');
    }

    /** The timer that ends /app delays: it only hands the response back to the connection. */
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "app-timer");
        t.setDaemon(true);
        return t;
    });

    private RapidoidServer() {
        // syncBufs = true (the default): /app responses are written from the timer thread
        super("Rapidoid", "Not Found", "Error", true);
    }

    private static final int HELLO_KIND = 0, APP_KIND = 1, NOT_FOUND_KIND = 2;

    /**
     * Per connection, once it has had an /app request: while a response is pending, later
     * pipelined requests wait here, because Rapidoid 5.5's own response-order control throws
     * ("Error in the response order control!") when a synchronous response follows an
     * asynchronous one on the same connection.
     */
    private static final class Pending {
        final long connId;
        boolean busy;
        final ArrayDeque<Job> queue = new ArrayDeque<>();

        Pending(long connId) {
            this.connId = connId;
        }
    }

    /** A response to produce in turn; start() says whether it finished at once (false: a timer runs). */
    private interface Job {
        boolean start();
    }

    @Override
    protected HttpStatus handle(Channel ctx, Buf buf, RapidoidHelper req) {
        int kind = !req.isGet.value ? NOT_FOUND_KIND
                : matches(buf, req.path, HELLO_PATH) ? HELLO_KIND
                : matches(buf, req.path, APP_PATH) ? APP_KIND
                : NOT_FOUND_KIND;
        boolean keepAlive = req.isKeepAlive.value;
        long connId = ctx.connId();

        Object o = ctx.state().obj;
        Pending p = o instanceof Pending && ((Pending) o).connId == connId ? (Pending) o : null;
        if (kind != APP_KIND) {
            boolean idle = true;
            if (p != null) {
                synchronized (p) {
                    idle = !p.busy;
                }
            }
            if (idle) { // the usual case: answer at once, in the I/O worker
                return kind == HELLO_KIND ? ok(ctx, keepAlive, HELLO, MediaType.TEXT_PLAIN) : HttpStatus.NOT_FOUND;
            }
        }
        if (p == null) {
            p = new Pending(connId);
            ctx.state().obj = p;
        }
        final Pending pending = p;
        final long handle = ctx.async();
        Job job;
        if (kind == APP_KIND) {
            job = () -> {
                long delay = ThreadLocalRandom.current().nextLong(95_000_000L, 105_000_001L);
                timer.schedule(() -> {
                    write(ctx, pending, handle, APP_KIND, keepAlive);
                    drain(pending);
                }, delay, TimeUnit.NANOSECONDS);
                return false;
            };
        } else {
            job = () -> {
                write(ctx, pending, handle, kind, keepAlive);
                return true;
            };
        }
        boolean runNow;
        synchronized (p) {
            runNow = !p.busy;
            if (runNow) {
                p.busy = true;
            } else {
                p.queue.add(job);
            }
        }
        if (runNow && job.start()) {
            drain(p);
        }
        return HttpStatus.ASYNC;
    }

    /** Hands the response back to the connection's worker (Rapidoid's resume), in request order. */
    private void write(Channel ctx, Pending p, long handle, int kind, boolean keepAlive) {
        ctx.resume(p.connId, handle, () -> {
            if (kind == NOT_FOUND_KIND) {
                ctx.write(HTTP_404);
            } else {
                ok(ctx, keepAlive, kind == APP_KIND ? APP : HELLO, MediaType.TEXT_PLAIN);
            }
            ctx.send();
            ctx.closeIf(!keepAlive);
            return true;
        });
    }

    /** Starts the queued responses after one has been written, until one needs a timer. */
    private static void drain(Pending p) {
        while (true) {
            Job next;
            synchronized (p) {
                next = p.queue.poll();
                if (next == null) {
                    p.busy = false;
                    return;
                }
            }
            if (!next.start()) {
                return;
            }
        }
    }

    public static void main(String[] args) {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8080;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        TCP.server()
                .protocol(new RapidoidServer())
                .address("127.0.0.1")
                .port(port)
                .workers(threads)
                .syncBufs(true)
                .build()
                .start();
        System.err.println("java-rapidoid listening on 127.0.0.1:" + port + " with " + threads + " worker(s)");
    }
}
