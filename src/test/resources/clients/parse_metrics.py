"""Parses an exposition on stdin with prometheus_client's parser and prints one line per sample,
"name{label=value,...}<TAB>value" (labels sorted), so the test reads exact values.

argv[1]: "text" (the Prometheus text format) or "openmetrics" (its parser insists on "# EOF").
"""
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as text_families

parse = openmetrics_families if sys.argv[1] == "openmetrics" else text_families
for family in parse(sys.stdin.read()):
    for sample in family.samples:
        labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
        value = float(sample.value)
        java = "NaN" if value != value else "Infinity" if value == float("inf") else "-Infinity" if value == float("-inf") else repr(value)
        print(f"{sample.name}{{{labels}}}\t{java}")
