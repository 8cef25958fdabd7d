-- POSTs a body of N bytes on every request: wrk ... -s bench/wrk/post.lua URL -- N
local request_bytes

function init(args)
  local size = tonumber(args[1])
  if size == nil then
    error("post.lua: give the body size in bytes after --")
  end
  request_bytes = wrk.format("POST", nil, {["Content-Type"] = "application/octet-stream"}, string.rep("x", size))
end

function request()
  return request_bytes
end
