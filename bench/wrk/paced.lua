-- A paced probe for bench/failing-apps.sh: each connection waits 4 ms between requests, so 8
-- connections offer at most ~2,000 req/s, well under what either server can serve; the latency
-- then shows interference, not saturation.
function delay()
  return 4
end
