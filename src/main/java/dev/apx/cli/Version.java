package dev.apx.cli;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** {@code apx --version}: pom.xml's version, spelt as the pip package spells it (PEP 440: 0.1.0-SNAPSHOT is 0.1.0.dev0). */
final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"apx " + number()};
    }

    static String number() {
        Properties properties = new Properties();
        try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
            if (in == null) {
                throw new IllegalStateException("version.properties is missing from apx's classes");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties.getProperty("version").replace("-SNAPSHOT", ".dev0");
    }
}
