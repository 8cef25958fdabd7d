package dev.apx.asgi;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The app's mistakes are named in the log as the app wrote them (bytes as b'...'). */
class MessagesTest {
    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void anInvalidHeaderIsQuotedAsPythonBytes() {
        Object header = new Object[]{bytes("x-bad"), bytes("a\r\nset-cookie: \u00e9'")};
        assertThatThrownBy(() -> Messages.headers(List.of(header)))
                .hasMessage("invalid header (b'x-bad', b'a\\r\\nset-cookie: \\xe9\\'')");
    }

    @Test
    void aHeaderThatIsNotAPairOfBytesIsQuotedAsPython() {
        assertThatThrownBy(() -> Messages.headers(List.of(List.of("content-type", bytes("text/plain")))))
                .hasMessage("each header must be a pair of bytes, got ['content-type', b'text/plain']");
    }
}
