-- :checkhealth ctxls — is the binary there, which version, is a server
-- running for this session, is its index ready, which embedder it uses.

local M = {}

-- The reporting functions: vim.health on Neovim 0.10+ (start, ok, ...),
-- report_* on 0.8/0.9, require('health') on 0.7.
local function reporter()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then
    h = require('health')
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
    info = h.info or h.report_info,
  }
end

--- Runs the checks (called by :checkhealth ctxls).
function M.check()
  local r = reporter()
  local ctxls = require('ctxls')
  local cmd = ctxls.config().cmd
  r.start('ctxls: binary')
  local exe = type(cmd) == 'table' and cmd[1] or nil
  if type(exe) ~= 'string' or vim.fn.executable(exe) ~= 1 then
    r.error(('the server command %s is not an executable'):format(vim.inspect(exe)), {
      'Install it: in a clone of ctxls, `go install ./cmd/ctxls` (Go and a C compiler), and put $(go env GOPATH)/bin on PATH',
      "or set its path: require('ctxls').setup{ cmd = { '/path/to/ctxls', 'serve' } }",
    })
  else
    r.ok(('%s is %s'):format(exe, vim.fn.exepath(exe)))
    local out = vim.fn.system({ exe, 'version' })
    if vim.v.shell_error == 0 and out:match('^ctxls ') then
      r.ok('version: ' .. vim.trim(out))
    else
      r.error(('`%s version` failed: %s'):format(exe, vim.trim(out)), { 'Is this the ctxls binary? Reinstall it.' })
    end
  end

  r.start('ctxls: servers')
  local servers = ctxls.status()
  if #servers == 0 then
    r.warn('no ctxls server is running in this session', {
      'Open a file inside a project (a directory with .git or another root marker); the server starts for it',
      'Or check :CtxlsStatus and :LspLog',
    })
    return
  end
  for _, s in ipairs(servers) do
    r.ok(('server %d is running for %s'):format(s.id, tostring(s.root)))
    local stats, err = ctxls.stats_sync(s.id, 5000)
    if not stats then
      r.error(('server %d does not answer: %s'):format(s.id, tostring(err)), { 'Restart it with :CtxlsRestart' })
    else
      if stats.ready then
        r.ok(('index ready: %d files, %d symbols'):format(stats.files or 0, stats.symbols or 0))
      else
        r.warn(('index not ready yet: %s'):format(s.message or 'indexing'), { 'Selections work meanwhile, on what is indexed so far' })
      end
      local emb = tostring(stats.embedder or '?')
      if emb:match('^onnx') then
        r.ok('embedder: ' .. emb .. ' (ONNX model)')
      else
        r.info('embedder: ' .. emb .. ' (built in; see :help ctxls-init_options for the ONNX model)')
      end
    end
  end
end

return M
