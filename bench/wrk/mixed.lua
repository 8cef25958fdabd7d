-- bench/soak's mix: each request picks one of the raw workloads (bench/apps/mixed.py) at random
local requests = {}

function init(args)
  local body = string.rep("x", 4096)
  requests = {
    wrk.format("GET", "/"), wrk.format("GET", "/10k"), wrk.format("GET", "/stream"),
    wrk.format("GET", "/sleep"), wrk.format("GET", "/file"),
    wrk.format("POST", "/echo", {["Content-Type"] = "application/octet-stream"}, body),
  }
end

function request()
  return requests[math.random(#requests)]
end
