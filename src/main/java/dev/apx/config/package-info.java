/**
 * apx's typed configuration: {@link dev.apx.config.ApxConfig} and its records, one per concern
 * (socket, HTTP, limits, TLS, WebSockets, app, Python runtime, warm-up, logging, metrics, workers),
 * each immutable and made with a builder that starts from {@link dev.apx.config.Defaults}. The command
 * line maps its flags and {@code APX_*} variables onto it; {@code dev.apx.Apx#server} takes it.
 * {@link dev.apx.config.Settings} lists every setting for the reference page (docs/settings.md).
 */
package dev.apx.config;
