package shootout;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.util.AsciiString;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The workload endpoints (shootout's docs/workloads.md): /baseline sums the query's and the
 * form body's numbers, /json/N prices the dataset's first N items and serialises them with
 * Jackson, /static/NAME names a file of the corpus, or its .br or .gz sibling when the client
 * accepts that encoding (the handlers send it as Netty's static-file example does). /upload's
 * bytes are counted by the handlers as they arrive.
 */
final class Workloads {
    static final ObjectMapper JSON = new ObjectMapper();

    /** Netty has no table of media types: the corpus's extensions. */
    private static final Map<String, AsciiString> TYPES = Map.of(
            "html", AsciiString.cached("text/html"),
            "css", AsciiString.cached("text/css"),
            "js", AsciiString.cached("text/javascript"),
            "json", AsciiString.cached("application/json"),
            "txt", AsciiString.cached("text/plain"),
            "svg", AsciiString.cached("image/svg+xml"),
            "png", AsciiString.cached("image/png"),
            "jpg", AsciiString.cached("image/jpeg"),
            "woff2", AsciiString.cached("font/woff2"));
    private static final AsciiString BR = AsciiString.cached("br");
    private static final AsciiString GZIP = AsciiString.cached("gzip");

    record Item(int id, String name, double price, int quantity) {
    }

    record Priced(int id, String name, double price, int quantity, double total) {
    }

    record Page(int count, List<Priced> items) {
    }

    private final List<Item> items;
    private final Path dir;
    /** The corpus's names: a name not among them is a 404, never a path. */
    private final Set<String> names;

    private Workloads(List<Item> items, Path dir, Set<String> names) {
        this.items = items;
        this.dir = dir;
        this.names = names;
    }

    static Workloads none() {
        return new Workloads(List.of(), null, Set.of());
    }

    /** `items.json` and `static/` of `dir`. */
    static Workloads load(Path dir) throws IOException {
        List<Item> items = Arrays.asList(JSON.readValue(dir.resolve("items.json").toFile(), Item[].class));
        Path files = dir.resolve("static");
        Set<String> names = new HashSet<>();
        if (Files.isDirectory(files)) {
            try (Stream<Path> list = Files.list(files)) {
                list.forEach(p -> names.add(p.getFileName().toString()));
            }
        }
        return new Workloads(items, files, names);
    }

    static Answer baseline(String query, CharSequence body) {
        long total = sum(query);
        if (body != null) {
            total += sum(body.toString());
        }
        return Answer.text(Long.toString(total));
    }

    /** The sum of a form's values that are whole numbers. */
    private static long sum(String form) {
        long total = 0;
        for (String pair : form.split("&")) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                continue;
            }
            try {
                total += Long.parseLong(pair.substring(eq + 1).trim());
            } catch (NumberFormatException notANumber) {
                // not a number: not summed
            }
        }
        return total;
    }

    Answer json(String count, String query) {
        int n;
        double m;
        try {
            n = Integer.parseInt(count);
        } catch (NumberFormatException e) {
            return Answer.notFound();
        }
        String mText = Endpoints.param(query, "m");
        try {
            m = mText == null ? 1 : Double.parseDouble(mText);
        } catch (NumberFormatException e) {
            m = 1;
        }
        List<Priced> priced = new ArrayList<>();
        for (Item i : items.subList(0, Math.max(0, Math.min(n, items.size())))) {
            priced.add(new Priced(i.id(), i.name(), i.price(), i.quantity(), i.price() * i.quantity() * m));
        }
        try {
            return Answer.bytes(io.netty.handler.codec.http.HttpResponseStatus.OK, Answer.JSON,
                    JSON.writeValueAsBytes(new Page(priced.size(), priced)));
        } catch (JsonProcessingException e) {
            return Answer.failed(e);
        }
    }

    Answer file(String name, CharSequence acceptEncoding) {
        if (!names.contains(name)) {
            return Answer.notFound();
        }
        int dot = name.lastIndexOf('.');
        AsciiString type = TYPES.getOrDefault(name.substring(dot + 1), AsciiString.cached("application/octet-stream"));
        if (accepts(acceptEncoding, "br") && names.contains(name + ".br")) {
            return sized(name + ".br", type, BR);
        }
        if (accepts(acceptEncoding, "gzip") && names.contains(name + ".gz")) {
            return sized(name + ".gz", type, GZIP);
        }
        return sized(name, type, null);
    }

    private Answer sized(String name, AsciiString type, AsciiString encoding) {
        Path path = dir.resolve(name);
        try {
            return Answer.file(path, Files.size(path), type, encoding);
        } catch (IOException e) {
            return Answer.notFound();
        }
    }

    /** Whether the Accept-Encoding `header` lists `encoding`. */
    private static boolean accepts(CharSequence header, String encoding) {
        if (header == null) {
            return false;
        }
        for (String token : header.toString().split(",")) {
            int semi = token.indexOf(';');
            String name = (semi < 0 ? token : token.substring(0, semi)).trim();
            if (name.equalsIgnoreCase(encoding)) {
                return true;
            }
        }
        return false;
    }
}
