-- POSTs a file's bytes on every request: wrk ... -s bench/wrk/post-file.lua URL -- FILE CONTENT-TYPE
-- (fastapi-post sends bench/wrk/order.json as application/json)
local request_bytes

function init(args)
  local path, content_type = args[1], args[2]
  if path == nil or content_type == nil then
    error("post-file.lua: give the file and its content type after --")
  end
  local file = assert(io.open(path, "rb"))
  local body = file:read("*a")
  file:close()
  request_bytes = wrk.format("POST", nil, {["Content-Type"] = content_type}, body)
end

function request()
  return request_bytes
end
