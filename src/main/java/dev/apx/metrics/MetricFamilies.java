package dev.apx.metrics;

import io.prometheus.metrics.expositionformats.generated.Metrics;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker's series as the Prometheus library's model again: the worker's endpoint writes them in
 * the protobuf format (length-delimited {@code io.prometheus.client.MetricFamily} messages, the
 * library's {@code PrometheusProtobufWriter}), the library's generated protobuf classes parse them,
 * and this maps each family back to the snapshot it was written from, so that the supervisor's
 * endpoint writes them with the library's own text and OpenMetrics writers.
 *
 * <p>What the protobuf format does not carry is not restored: the unit (no {@code # UNIT} line in
 * OpenMetrics), exemplars (apx records none), native histogram buckets (apx's histograms are classic
 * only). The writer adds {@code _total} to a counter's name and {@code _info} to an info's (written
 * as a gauge): they are taken off again.
 */
final class MetricFamilies {
    private MetricFamilies() {
    }

    /** Every family in {@code body}; an exception if it is not that format. */
    static List<MetricSnapshot> decode(byte[] body) throws IOException {
        List<MetricSnapshot> snapshots = new ArrayList<>();
        InputStream in = new ByteArrayInputStream(body);
        for (Metrics.MetricFamily family = Metrics.MetricFamily.parseDelimitedFrom(in); family != null;
             family = Metrics.MetricFamily.parseDelimitedFrom(in)) {
            snapshots.add(snapshot(family));
        }
        return snapshots;
    }

    static MetricSnapshot snapshot(Metrics.MetricFamily family) {
        String name = family.getName();
        String help = family.hasHelp() ? family.getHelp() : null;
        return switch (family.getType()) {
            case COUNTER -> {
                CounterSnapshot.Builder counter = CounterSnapshot.builder().name(strip(name, "_total")).help(help);
                for (Metrics.Metric metric : family.getMetricList()) {
                    counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels(metric))
                            .value(metric.getCounter().getValue()).build());
                }
                yield counter.build();
            }
            case GAUGE -> name.endsWith("_info") ? info(family, strip(name, "_info"), help) : gauge(family, name, help);
            case SUMMARY -> {
                SummarySnapshot.Builder summary = SummarySnapshot.builder().name(name).help(help);
                for (Metrics.Metric metric : family.getMetricList()) {
                    Metrics.Summary data = metric.getSummary();
                    Quantiles.Builder quantiles = Quantiles.builder();
                    for (Metrics.Quantile quantile : data.getQuantileList()) {
                        quantiles.quantile(new Quantile(quantile.getQuantile(), quantile.getValue()));
                    }
                    SummarySnapshot.SummaryDataPointSnapshot.Builder point = SummarySnapshot.SummaryDataPointSnapshot.builder()
                            .labels(labels(metric)).quantiles(quantiles.build());
                    if (data.hasSampleCount()) {
                        point.count(data.getSampleCount());
                    }
                    if (data.hasSampleSum()) {
                        point.sum(data.getSampleSum());
                    }
                    summary.dataPoint(point.build());
                }
                yield summary.build();
            }
            case HISTOGRAM, GAUGE_HISTOGRAM -> histogram(family, name, help);
            case UNTYPED -> {
                UnknownSnapshot.Builder unknown = UnknownSnapshot.builder().name(name).help(help);
                for (Metrics.Metric metric : family.getMetricList()) {
                    unknown.dataPoint(UnknownSnapshot.UnknownDataPointSnapshot.builder().labels(labels(metric))
                            .value(metric.getUntyped().getValue()).build());
                }
                yield unknown.build();
            }
        };
    }

    private static MetricSnapshot gauge(Metrics.MetricFamily family, String name, String help) {
        GaugeSnapshot.Builder gauge = GaugeSnapshot.builder().name(name).help(help);
        for (Metrics.Metric metric : family.getMetricList()) {
            gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels(metric))
                    .value(metric.getGauge().getValue()).build());
        }
        return gauge.build();
    }

    private static MetricSnapshot info(Metrics.MetricFamily family, String name, String help) {
        InfoSnapshot.Builder info = InfoSnapshot.builder().name(name).help(help);
        for (Metrics.Metric metric : family.getMetricList()) {
            info.dataPoint(InfoSnapshot.InfoDataPointSnapshot.builder().labels(labels(metric)).build());
        }
        return info.build();
    }

    /** The protobuf format's buckets are cumulative, the model's are per bucket. */
    private static MetricSnapshot histogram(Metrics.MetricFamily family, String name, String help) {
        HistogramSnapshot.Builder histogram = HistogramSnapshot.builder().name(name).help(help)
                .gaugeHistogram(family.getType() == Metrics.MetricType.GAUGE_HISTOGRAM);
        for (Metrics.Metric metric : family.getMetricList()) {
            Metrics.Histogram data = metric.getHistogram();
            ClassicHistogramBuckets.Builder buckets = ClassicHistogramBuckets.builder();
            long below = 0;
            for (Metrics.Bucket bucket : data.getBucketList()) {
                buckets.bucket(bucket.getUpperBound(), bucket.getCumulativeCount() - below);
                below = bucket.getCumulativeCount();
            }
            HistogramSnapshot.HistogramDataPointSnapshot.Builder point = HistogramSnapshot.HistogramDataPointSnapshot.builder()
                    .labels(labels(metric)).classicHistogramBuckets(buckets.build());
            if (data.hasSampleSum()) {
                point.sum(data.getSampleSum());
            }
            histogram.dataPoint(point.build());
        }
        return histogram.build();
    }

    private static Labels labels(Metrics.Metric metric) {
        Labels.Builder labels = Labels.builder();
        for (Metrics.LabelPair pair : metric.getLabelList()) {
            labels.label(pair.getName(), pair.getValue());
        }
        return labels.build();
    }

    private static String strip(String name, String suffix) {
        return name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : name;
    }
}
