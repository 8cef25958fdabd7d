package dev.apx.config;

import java.util.Locale;

/**
 * One setting of {@link ApxConfig}, as the settings reference and {@code --help} describe it.
 *
 * @param record       the {@link ApxConfig} component that holds it ({@code bind})
 * @param name         its component and builder method in that record ({@code port})
 * @param type         its values, in words ({@code int}, {@code seconds}, {@code auto|on|off})
 * @param defaultValue its default as the command line spells it ({@code 8000}, {@code on}), or null: unset
 * @param summary      what it does, in one line
 * @param details      more about it, or empty
 */
public record Setting(String record, String name, String type, String defaultValue, String summary, String details) {

    /**
     * A setting whose default is {@code value}, spelt as the command line takes it.
     *
     * @param record  the {@link ApxConfig} component
     * @param name    the component of that record
     * @param type    its values, in words
     * @param value   the default ({@link Defaults}), or null: unset
     * @param summary what it does, in one line
     * @param details more, or empty
     * @return the setting
     */
    static Setting of(String record, String name, String type, Object value, String summary, String details) {
        return new Setting(record, name, type, spelt(value), summary, details);
    }

    /**
     * A default that depends on the environment or is unset, in words ({@code $WEB_CONCURRENCY or 1}).
     *
     * @param text the words
     * @return a marker {@link #of} keeps as they are
     */
    static Words words(String text) {
        return new Words(text);
    }

    /** A default in words. */
    record Words(String text) {
    }

    /**
     * {@code record.name}: {@code bind.port}.
     *
     * @return the key
     */
    public String key() {
        return record + "." + name;
    }

    private static String spelt(Object value) {
        return switch (value) {
            case null -> null;
            case Words words -> words.text();
            case Boolean on -> on ? "on" : "off";
            case Enum<?> constant -> constant.name().toLowerCase(Locale.ROOT);
            default -> String.valueOf(value);
        };
    }
}
