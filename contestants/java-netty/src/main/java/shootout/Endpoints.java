package shootout;

import io.netty.handler.codec.http.HttpMethod;

import java.util.concurrent.CompletableFuture;

/**
 * The workload and database endpoints, answered alike over HTTP/1.1 and HTTP/2 (the handlers
 * keep /hello and /app on their own fast paths). A workload is answered at once; a database
 * endpoint on the database's threads, later.
 */
final class Endpoints {
    private static Workloads workloads = Workloads.none();
    private static Database database;

    private Endpoints() {
    }

    /** The workloads' data from `dir` (none when null), the database from DATABASE_URL. */
    static void start(String dir) throws Exception {
        if (dir != null) {
            workloads = Workloads.load(java.nio.file.Path.of(dir));
        }
        database = Database.fromEnvironment();
    }

    /** Whether a request's body is read for its answer: else it is let go unread. */
    static boolean readsBody(HttpMethod method, String path) {
        return method == HttpMethod.POST && (path.equals("/baseline") || path.equals("/upload"));
    }

    /**
     * The answer to `method` `uri` whose body (read when {@link #readsBody} says so) was
     * `bodyBytes` long and, for /baseline, `bodyText`; `acceptEncoding` may be null.
     */
    static CompletableFuture<Answer> answer(HttpMethod method, String uri, CharSequence acceptEncoding,
                                            long bodyBytes, CharSequence bodyText) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        String query = q < 0 ? "" : uri.substring(q + 1);
        boolean get = method == HttpMethod.GET || method == HttpMethod.HEAD;
        if (path.equals("/baseline") && (get || method == HttpMethod.POST)) {
            return done(Workloads.baseline(query, bodyText));
        }
        if (path.equals("/upload") && method == HttpMethod.POST) {
            return done(Answer.text(Long.toString(bodyBytes)));
        }
        if (!get) {
            return done(Answer.notFound());
        }
        if (path.startsWith("/json/")) {
            return done(workloads.json(path.substring("/json/".length()), query));
        }
        if (path.startsWith("/static/")) {
            return done(workloads.file(path.substring("/static/".length()), acceptEncoding));
        }
        if (database != null) {
            switch (path) {
                case "/db":
                    return database.db();
                case "/queries":
                    return database.queries(Database.rowsAsked(query));
                case "/updates":
                    return database.updates(Database.rowsAsked(query));
                case "/fortunes":
                    return database.fortunes();
                default:
            }
        }
        return done(Answer.notFound());
    }

    private static CompletableFuture<Answer> done(Answer a) {
        return CompletableFuture.completedFuture(a);
    }

    /** The value of `name` in `query`, or null. */
    static String param(String query, String name) {
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.regionMatches(0, name, 0, eq) && eq == name.length()) {
                return pair.substring(eq + 1);
            }
        }
        return null;
    }
}
