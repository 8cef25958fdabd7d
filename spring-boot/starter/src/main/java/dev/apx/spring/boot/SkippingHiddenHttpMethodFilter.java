package dev.apx.spring.boot;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.boot.servlet.filter.OrderedHiddenHttpMethodFilter;

/** Spring MVC's hidden-HTTP-method filter, which leaves alone the requests mapped to one servlet. */
final class SkippingHiddenHttpMethodFilter extends OrderedHiddenHttpMethodFilter {
    private final String servletName;

    SkippingHiddenHttpMethodFilter(String servletName) {
        this.servletName = servletName;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return servletName.equals(request.getHttpServletMapping().getServletName());
    }
}
