package dev.apx;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One header field as sent or received: a name and a value, in the order they came. Also a
 * {@link Map.Entry} (key = name), so that lists of headers work with code written for entries.
 *
 * @param name  the field name, as spelled (any case)
 * @param value the field value
 */
public record Header(String name, String value) implements Map.Entry<String, String> {
    /**
     * A header field.
     *
     * @throws NullPointerException the name or the value is null
     */
    public Header {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
    }

    /** The value of the first of {@code headers} named {@code name} (any case), or null. */
    static String first(List<Header> headers, String name) {
        for (Header header : headers) {
            if (header.name().equalsIgnoreCase(name)) {
                return header.value();
            }
        }
        return null;
    }

    @Override
    public String getKey() {
        return name;
    }

    @Override
    public String getValue() {
        return value;
    }

    @Override
    public String setValue(String ignored) {
        throw new UnsupportedOperationException("a Header is immutable");
    }

    /** Equal to any entry with the same name and value, as {@link Map.Entry#equals} asks. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Map.Entry<?, ?> entry && name.equals(entry.getKey()) && value.equals(entry.getValue());
    }

    @Override
    public int hashCode() {
        return name.hashCode() ^ value.hashCode();
    }

    @Override
    public String toString() {
        return name + ": " + value;
    }
}
