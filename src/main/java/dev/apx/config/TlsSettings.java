package dev.apx.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * HTTPS: the certificate, its key and the client-certificate rules; cleartext while {@code certFile} and {@code
 * keyFile} are unset.
 * Immutable; {@link #builder()} starts from the defaults ({@link Defaults}), {@link #toBuilder()} from this.
 *
 * @param certFile TLS certificate (PEM) and chain: serve HTTPS; null: unset, the default
 * @param keyFile TLS private key (PEM, may be encrypted); null: unset, the default
 * @param keyFilePassword password of an encrypted --ssl-keyfile; null: unset, the default
 * @param version python's ssl.PROTOCOL_* number; default {@link Defaults#SSL_VERSION}
 * @param certReqs ask for client certificates: 0-2; default {@link Defaults#SSL_CERT_REQS}
 * @param caCerts CA certificates (PEM) for client certificates; null: unset, the default
 * @param ciphers cipher suites, ':'-separated; null: unset, the default
 * @param engine TLS engine; default {@link Defaults#SSL_ENGINE}
 */
public record TlsSettings(Path certFile, Path keyFile, String keyFilePassword, int version, int certReqs, Path caCerts,
                          String ciphers, String engine) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException a value out of its range, named by its command-line flag
     */
    public TlsSettings {
        Objects.requireNonNull(engine, "engine");
    }

    /**
     * A builder with every setting at its default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding this record's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder();
        builder.certFile = certFile;
        builder.keyFile = keyFile;
        builder.keyFilePassword = keyFilePassword;
        builder.version = version;
        builder.certReqs = certReqs;
        builder.caCerts = caCerts;
        builder.ciphers = ciphers;
        builder.engine = engine;
        return builder;
    }

    /** Builds a {@link TlsSettings}; {@link #build} checks the values. */
    public static final class Builder {
        private Path certFile = null;
        private Path keyFile = null;
        private String keyFilePassword = null;
        private int version = Defaults.SSL_VERSION;
        private int certReqs = Defaults.SSL_CERT_REQS;
        private Path caCerts = null;
        private String ciphers = null;
        private String engine = Defaults.SSL_ENGINE;

        private Builder() {
        }

        /**
         * TLS certificate (PEM) and chain: serve HTTPS.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder certFile(Path value) {
            this.certFile = value;
            return this;
        }

        /**
         * TLS private key (PEM, may be encrypted).
         * PKCS#8, PKCS#1 or SEC1.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder keyFile(Path value) {
            this.keyFile = value;
            return this;
        }

        /**
         * Password of an encrypted --ssl-keyfile.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder keyFilePassword(String value) {
            this.keyFilePassword = value;
            return this;
        }

        /**
         * Python's ssl.PROTOCOL_* number.
         * 17 or 2: TLS 1.2 and 1.3; 5: TLS 1.2 only.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder version(int value) {
            this.version = value;
            return this;
        }

        /**
         * Ask for client certificates: 0-2.
         * 0: none, 1: optional, 2: required (needs --ssl-ca-certs).
         *
         * @param value the new value
         * @return this builder
         */
        public Builder certReqs(int value) {
            this.certReqs = value;
            return this;
        }

        /**
         * CA certificates (PEM) for client certificates.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder caCerts(Path value) {
            this.caCerts = value;
            return this;
        }

        /**
         * Cipher suites, ':'-separated.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder ciphers(String value) {
            this.ciphers = value;
            return this;
        }

        /**
         * TLS engine.
         * auto uses BoringSSL (netty-tcnative) where it loads, else the JDK's TLS.
         *
         * @param value the new value
         * @return this builder
         */
        public Builder engine(String value) {
            this.engine = value;
            return this;
        }

        /**
         * The settings as set.
         *
         * @return the record
         * @throws IllegalArgumentException a value out of its range, named by its command-line flag
         */
        public TlsSettings build() {
            return new TlsSettings(certFile, keyFile, keyFilePassword, version, certReqs, caCerts, ciphers, engine);
        }
    }
}
