package shootout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

/**
 * TechEmpower's database endpoints (shootout's docs/database.md) on PgJDBC through a HikariCP
 * pool of DATABASE_POOL connections. JDBC blocks, so each request runs on a thread of a pool
 * as large as the connections', never on an event loop; its answer goes back to the
 * connection's loop. Statements are prepared through the protocol (PgJDBC prepares on the
 * server after a statement's fifth use); the updates are written in one JDBC batch.
 */
final class Database {
    private static final String READ_ROW = "SELECT randomnumber FROM world WHERE id = ?";
    private static final String WRITE_ROW = "UPDATE world SET randomnumber = ? WHERE id = ?";
    private static final String FORTUNES = "SELECT id, message FROM fortune";
    private static final int ROWS = 10_000;

    record World(int id, int randomNumber) {
    }

    private record Fortune(int id, String message) {
    }

    private final HikariDataSource pool;
    private final ExecutorService threads;

    private Database(HikariDataSource pool, ExecutorService threads) {
        this.pool = pool;
        this.threads = threads;
    }

    /** The pool to DATABASE_URL (postgres://user:password@host:port/name), or null without it. */
    static Database fromEnvironment() {
        String url = System.getenv("DATABASE_URL");
        if (url == null || url.isEmpty()) {
            return null;
        }
        String poolSize = System.getenv("DATABASE_POOL");
        int size = poolSize == null ? 16 : Integer.parseInt(poolSize);
        URI uri = URI.create(url);
        String[] user = uri.getUserInfo() == null ? new String[0] : uri.getUserInfo().split(":", 2);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://" + uri.getHost() + ":" + uri.getPort() + uri.getPath());
        if (user.length > 0) {
            config.setUsername(user[0]);
        }
        if (user.length > 1) {
            config.setPassword(user[1]);
        }
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        // The pool opens its connections at start; the database may be a moment behind.
        config.setInitializationFailTimeout(-1);
        return new Database(new HikariDataSource(config), Executors.newFixedThreadPool(size));
    }

    /** `q` by TechEmpower's rule: missing, not a number or below 1 is 1; above 500 is 500. */
    static int rowsAsked(String query) {
        String q = Endpoints.param(query, "q");
        int n;
        try {
            n = q == null ? 1 : Integer.parseInt(q);
        } catch (NumberFormatException e) {
            n = 1;
        }
        return Math.min(Math.max(n, 1), 500);
    }

    /** A blocking piece of work on a connection of the pool. */
    private interface Work {
        Answer on(Connection c) throws SQLException, JsonProcessingException;
    }

    private CompletableFuture<Answer> run(Work work) {
        return CompletableFuture.supplyAsync(() -> {
            try (Connection c = pool.getConnection()) {
                return work.on(c);
            } catch (SQLException | JsonProcessingException | RuntimeException e) {
                return Answer.failed(e);
            }
        }, threads);
    }

    CompletableFuture<Answer> db() {
        return run(c -> {
            try (PreparedStatement read = c.prepareStatement(READ_ROW)) {
                return json(read(read, randomId()));
            }
        });
    }

    CompletableFuture<Answer> queries(int n) {
        return run(c -> json(read(c, n)));
    }

    CompletableFuture<Answer> updates(int n) {
        return run(c -> {
            World[] worlds = read(c, n);
            for (int i = 0; i < worlds.length; i++) {
                worlds[i] = new World(worlds[i].id(), randomId());
            }
            // In id order, so that two updates lock their common rows in one order.
            Arrays.sort(worlds, Comparator.comparingInt(World::id));
            try (PreparedStatement write = c.prepareStatement(WRITE_ROW)) {
                for (World w : worlds) {
                    write.setInt(1, w.randomNumber());
                    write.setInt(2, w.id());
                    write.addBatch();
                }
                write.executeBatch();
            }
            return json(worlds);
        });
    }

    CompletableFuture<Answer> fortunes() {
        return run(c -> {
            List<Fortune> fortunes = new ArrayList<>();
            try (PreparedStatement all = c.prepareStatement(FORTUNES); ResultSet rows = all.executeQuery()) {
                while (rows.next()) {
                    fortunes.add(new Fortune(rows.getInt(1), rows.getString(2)));
                }
            }
            fortunes.add(new Fortune(0, "Additional fortune added at request time."));
            fortunes.sort(Comparator.comparing(Fortune::message));
            StringBuilder page = new StringBuilder(2048).append(
                    "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
                            + "<tr><th>id</th><th>message</th></tr>");
            for (Fortune f : fortunes) {
                page.append("<tr><td>").append(f.id()).append("</td><td>");
                escape(f.message(), page);
                page.append("</td></tr>");
            }
            page.append("</table></body></html>");
            return Answer.bytes(HttpResponseStatus.OK, Answer.HTML, page.toString().getBytes(StandardCharsets.UTF_8));
        });
    }

    /** `n` random rows, one SELECT each, on `c`. */
    private static World[] read(Connection c, int n) throws SQLException {
        World[] worlds = new World[n];
        try (PreparedStatement read = c.prepareStatement(READ_ROW)) {
            for (int i = 0; i < n; i++) {
                worlds[i] = read(read, randomId());
            }
        }
        return worlds;
    }

    private static World read(PreparedStatement read, int id) throws SQLException {
        read.setInt(1, id);
        try (ResultSet row = read.executeQuery()) {
            row.next();
            return new World(id, row.getInt(1));
        }
    }

    private static Answer json(Object value) throws JsonProcessingException {
        return Answer.bytes(HttpResponseStatus.OK, Answer.JSON, Workloads.JSON.writeValueAsBytes(value));
    }

    private static int randomId() {
        return ThreadLocalRandom.current().nextInt(1, ROWS + 1);
    }

    /**
     * `text` HTML-escaped onto `out`: the JDK has no HTML escaper, and a template engine
     * would be a second library for five characters.
     */
    private static void escape(String text, StringBuilder out) {
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            switch (ch) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(ch);
            }
        }
    }
}
