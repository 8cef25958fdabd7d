package dev.apx.spring.boot;

import dev.apx.Apx;
import dev.apx.PythonApp;
import dev.apx.PythonRuntime;
import dev.apx.servlet.ApxServlet;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.servlet.filter.OrderedFormContentFilter;
import org.springframework.boot.servlet.filter.OrderedHiddenHttpMethodFilter;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.filter.FormContentFilter;
import org.springframework.web.filter.HiddenHttpMethodFilter;

import java.nio.file.Path;

/**
 * apx in a Spring Boot application, once {@code apx.app} is set ({@link ApxProperties}):
 * <ul>
 *   <li>a {@link PythonRuntime} bean, the embedded CPython of {@code apx.python};</li>
 *   <li>a {@link PythonApp} bean, the app loaded and its lifespan started, for in-process calls;</li>
 *   <li>a lifecycle that closes the app (drain, then lifespan shutdown) after the web server has
 *       stopped, on {@code SIGTERM} as on any context close;</li>
 *   <li>in a servlet web application, {@link ApxServlet} at {@code apx.mount-path} ({@code /py/*}),
 *       and Spring MVC's form filters kept off its requests, so that form bodies reach Python as sent.</li>
 * </ul>
 * Each bean backs off if the application defines its own of that type.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration")
@ConditionalOnClass(PythonApp.class)
@ConditionalOnProperty(prefix = "apx", name = "app")
@EnableConfigurationProperties(ApxProperties.class)
public class ApxAutoConfiguration {
    /** The name the servlet is registered under; the form filters skip the requests mapped to it. */
    public static final String SERVLET_NAME = "apxServlet";

    /** Made by Spring. */
    public ApxAutoConfiguration() {
    }

    /**
     * The embedded CPython of {@code apx.python}.
     *
     * @param properties the {@code apx.*} properties
     * @return the runtime (one per executable and JVM)
     * @throws IllegalStateException if {@code apx.python} is not set
     */
    @Bean
    @ConditionalOnMissingBean
    public PythonRuntime pythonRuntime(ApxProperties properties) {
        if (properties.getPython() == null || properties.getPython().isBlank()) {
            throw new IllegalStateException("apx.python is not set: name the Python to embed, e.g. apx.python=/srv/venv/bin/python");
        }
        return Apx.python(Path.of(properties.getPython()));
    }

    /**
     * The app, loaded with its lifespan started. Spring also closes it when the context is destroyed
     * without having been stopped (a failed start); {@link PythonApp#close} runs once.
     *
     * @param runtime    the runtime to load it into
     * @param properties the {@code apx.*} properties
     * @return the app, ready for requests
     */
    @Bean
    @ConditionalOnMissingBean
    public PythonApp pythonApp(PythonRuntime runtime, ApxProperties properties) {
        return runtime.app(properties.toAppOptions());
    }

    /**
     * Closes the app in Spring's shutdown order, after the web server.
     *
     * @param app the app to close
     * @return the lifecycle
     */
    @Bean
    @ConditionalOnSingleCandidate(PythonApp.class)
    public PythonAppLifecycle pythonAppLifecycle(PythonApp app) {
        return new PythonAppLifecycle(app);
    }

    /** The servlet. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass({ApxServlet.class, ServletRegistrationBean.class})
    @ConditionalOnBooleanProperty(name = "apx.servlet.enabled", matchIfMissing = true)
    static class ServletConfiguration {
        /**
         * {@link ApxServlet} at {@code apx.mount-path}, asynchronous as it requires.
         *
         * @param app        the app it serves
         * @param properties the {@code apx.*} properties
         * @return the registration
         */
        @Bean
        @ConditionalOnMissingBean(name = SERVLET_NAME)
        ServletRegistrationBean<ApxServlet> apxServlet(PythonApp app, ApxProperties properties) {
            ServletRegistrationBean<ApxServlet> registration = new ServletRegistrationBean<>(new ApxServlet(app), properties.getMountPath());
            registration.setName(SERVLET_NAME);
            registration.setAsyncSupported(true);
            registration.setLoadOnStartup(1);
            return registration;
        }
    }

    /**
     * Spring MVC's form filters, as {@code WebMvcAutoConfiguration} would register them, but for the
     * requests mapped to apx's servlet: they read a form body into request parameters, which leaves
     * the app an empty body.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = {"org.springframework.web.servlet.DispatcherServlet",
            "org.springframework.boot.servlet.filter.OrderedFormContentFilter"})
    @ConditionalOnBooleanProperty(name = "apx.servlet.enabled", matchIfMissing = true)
    static class FormFilterConfiguration {
        /**
         * {@link FormContentFilter}, which reads PUT, PATCH and DELETE form bodies.
         *
         * @return the filter, minus apx's requests
         */
        @Bean
        @ConditionalOnMissingBean(FormContentFilter.class)
        @ConditionalOnBooleanProperty(name = "spring.mvc.formcontent.filter.enabled", matchIfMissing = true)
        OrderedFormContentFilter formContentFilter() {
            return new SkippingFormContentFilter(SERVLET_NAME);
        }

        /**
         * {@link HiddenHttpMethodFilter} (when turned on), which reads a POST form body for its
         * {@code _method} field.
         *
         * @return the filter, minus apx's requests
         */
        @Bean
        @ConditionalOnMissingBean(HiddenHttpMethodFilter.class)
        @ConditionalOnBooleanProperty(name = "spring.mvc.hiddenmethod.filter.enabled")
        OrderedHiddenHttpMethodFilter hiddenHttpMethodFilter() {
            return new SkippingHiddenHttpMethodFilter(SERVLET_NAME);
        }
    }
}
