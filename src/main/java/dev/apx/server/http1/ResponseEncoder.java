package dev.apx.server.http1;

import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpStatusClass;

/** Netty's response encoder, told which responses answer a HEAD request (no body, no chunk terminator). */
public final class ResponseEncoder extends HttpResponseEncoder {
    private final HeadRequests heads;

    public ResponseEncoder(HeadRequests heads) {
        this.heads = heads;
    }

    @Override
    protected boolean isContentAlwaysEmpty(HttpResponse response) {
        if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
            return super.isContentAlwaysEmpty(response); // 100 Continue answers nothing yet
        }
        return heads.next() || super.isContentAlwaysEmpty(response);
    }
}
