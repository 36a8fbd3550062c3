package shootout;

import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.AsciiString;

import java.nio.file.Path;

/**
 * What a request is answered with, whichever protocol carried it: a status, a media type and
 * either whole bytes or a file (sent by each protocol its own way: a FileRegion, chunks, or
 * DATA frames), with the Content-Encoding the file has.
 */
final class Answer {
    static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain");
    static final AsciiString JSON = AsciiString.cached("application/json");
    static final AsciiString HTML = AsciiString.cached("text/html; charset=utf-8");

    final HttpResponseStatus status;
    final AsciiString type;
    final byte[] body;
    final Path file;
    final long fileLength;
    final AsciiString encoding;

    private Answer(HttpResponseStatus status, AsciiString type, byte[] body, Path file, long fileLength,
                   AsciiString encoding) {
        this.status = status;
        this.type = type;
        this.body = body;
        this.file = file;
        this.fileLength = fileLength;
        this.encoding = encoding;
    }

    static Answer bytes(HttpResponseStatus status, AsciiString type, byte[] body) {
        return new Answer(status, type, body, null, 0, null);
    }

    static Answer text(String body) {
        return bytes(HttpResponseStatus.OK, TEXT_PLAIN, body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    static Answer notFound() {
        return bytes(HttpResponseStatus.NOT_FOUND, TEXT_PLAIN, NettyServer.NOT_FOUND);
    }

    static Answer failed(Throwable cause) {
        String why = String.valueOf(cause.getMessage());
        return bytes(HttpResponseStatus.INTERNAL_SERVER_ERROR, TEXT_PLAIN, why.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** `file`, of `length` bytes, as `type`; `encoding` is null for the file as it is. */
    static Answer file(Path file, long length, AsciiString type, AsciiString encoding) {
        return new Answer(HttpResponseStatus.OK, type, null, file, length, encoding);
    }

    long length() {
        return file != null ? fileLength : body.length;
    }
}
