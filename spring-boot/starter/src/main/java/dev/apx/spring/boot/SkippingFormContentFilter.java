package dev.apx.spring.boot;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.servlet.filter.OrderedFormContentFilter;

/** Spring MVC's form-content filter, which leaves alone the requests mapped to one servlet. */
final class SkippingFormContentFilter extends OrderedFormContentFilter {
    private final String servletName;

    SkippingFormContentFilter(String servletName) {
        this.servletName = servletName;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return servletName.equals(request.getHttpServletMapping().getServletName());
    }
}
