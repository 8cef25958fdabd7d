package dev.apx.examples.boot;

import dev.apx.AppRequest;
import dev.apx.PythonApp;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * Java endpoints beside the Python app. {@code /java/price} asks the app in-process (no socket) and
 * answers asynchronously: no Tomcat thread waits for Python.
 */
@RestController
class PriceController {
    private final PythonApp python;

    PriceController(PythonApp python) {
        this.python = python;
    }

    @GetMapping(path = "/java/price", produces = MediaType.APPLICATION_JSON_VALUE)
    CompletableFuture<ResponseEntity<String>> price(@RequestParam String name, @RequestParam double price) {
        String item = String.format(Locale.ROOT, "{\"name\":\"%s\",\"price\":%s}", name.replace("\"", ""), price);
        AppRequest request = AppRequest.post("/items", item.getBytes(StandardCharsets.UTF_8), "application/json");
        return python.call(request).thenApply(response -> ResponseEntity.status(response.status())
                .body("{\"from\":\"java\",\"python\":" + response.bodyText() + "}"));
    }

    /** A form Spring MVC parses itself (its form-content filter still works for Java endpoints). */
    @PutMapping(path = "/java/form", produces = MediaType.TEXT_PLAIN_VALUE)
    String form(@RequestParam String name) {
        return "java got name=" + name;
    }
}
