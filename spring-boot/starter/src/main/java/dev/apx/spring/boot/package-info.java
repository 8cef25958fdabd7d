/**
 * Spring Boot auto-configuration for apx: a Python web app named in {@code application.properties}
 * ({@link dev.apx.spring.boot.ApxProperties}), served by a servlet beside the application's own
 * endpoints and available as a bean for in-process calls ({@link dev.apx.spring.boot.ApxAutoConfiguration}).
 */
package dev.apx.spring.boot;
