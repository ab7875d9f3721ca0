-- ctxls.nvim: select code context for AI tools from Neovim.
--
-- Starts one `ctxls` language server per project root, attaches file
-- buffers to it, tells it which file and line you are looking at
-- (ctxls/didFocus on BufEnter and CursorHold), and asks it for context
-- (workspace/contextSelect). Works on Neovim 0.7 through 0.11; the API
-- differences between them are confined to the "compat" section below.
-- See :help ctxls.

local M = {}

local NAME = 'ctxls'
local RESULTS_NAME = 'ctxls://results'

local uv = vim.uv or vim.loop
local islist = vim.islist or vim.tbl_islist
local has = function(feature)
  return vim.fn.has(feature) == 1
end
local HAS_08 = has('nvim-0.8') -- vim.lsp.start
local HAS_010 = has('nvim-0.10') -- vim.lsp.get_clients
local HAS_011 = has('nvim-0.11') -- client:method() calls

local defaults = {
  -- The command that starts the server; it speaks LSP on stdin/stdout.
  cmd = { 'ctxls', 'serve' },
  -- Share one live index with agents and the CLI through ctxls's per-user
  -- daemon (`--remote=auto`): an agent's `ctxls mcp --remote=auto` or a
  -- terminal's `ctxls select --remote=auto` then sees this editor's open
  -- files, unsaved edits and cursor (with the same init_options).
  share_index = false,
  -- initializationOptions: embedder, modelPath, onnxRuntimeLibrary,
  -- exclude, maxFileBytes, cacheDir (docs/protocol.md).
  init_options = {},
  -- A directory holding one of these is a project root (nearest wins).
  root_markers = { '.git', '.hg', '.jj', '.svn' },
  -- function(bufnr, path) -> root directory or nil; overrides root_markers.
  root_dir = nil,
  -- Filetypes to attach; nil attaches every file buffer.
  filetypes = nil,
  -- Start servers and attach buffers automatically; false when another
  -- plugin (nvim-lspconfig, vim.lsp.enable) starts the client named "ctxls".
  autostart = true,
  -- Default workspace/contextSelect options, overridable per request.
  request = { limit = 8, maxChars = 12000, maxCharsPerItem = 1500 },
  -- Your model's context budget for ctxls, in tokens (sent as maxTokens
  -- when a request gives none; nil: none), and the encoding it is counted
  -- in: 'o200k_base' (the server's default) or 'cl100k_base'.
  max_tokens = nil,
  token_encoding = nil,
  -- The :CtxlsSelect results window.
  results = { open = 'botright split', height = 20, folded = false },
  -- The :CtxlsPick picker: 'auto' (vim.ui.select when a plugin such as
  -- Telescope, fzf-lua or snacks replaces it, else the built-in floating
  -- list with a preview), 'builtin' or 'ui_select'.
  picker = 'auto',
  -- Passed through to the LSP client.
  capabilities = nil,
  on_attach = nil,
  cmd_env = nil,
}

-- All of the plugin's state, owned by this module.
local state = {
  config = nil, -- the merged setup options; nil until setup()
  roots = {}, -- root directory -> client id, for clients this plugin started
  status = {}, -- client id -> { root, indexing, ready, message, percentage, stats }
  focus = {}, -- client id -> the last didFocus sent ("uri:line:character")
  last_file_buf = nil, -- the last file buffer entered that has a ctxls client
  results = {}, -- results buffer -> { items = { [header line] = item }, query }
  selection = nil, -- the selection the commands show and steer (new_selection)
  pins = {}, -- project root -> item ids the user pinned, in order
  highlighted = nil, -- the buffer holding the highlight of the item opened last
  warned = {}, -- messages already shown once
}

local function notify(msg, level)
  vim.notify('ctxls: ' .. msg, level or vim.log.levels.INFO)
end

local function notify_once(key, msg, level)
  if not state.warned[key] then
    state.warned[key] = true
    notify(msg, level or vim.log.levels.WARN)
  end
end

----------------------------------------------------------------------------
-- compat: the LSP client API across Neovim 0.7 – 0.11

local function client_request(client, method, params, handler, bufnr)
  if HAS_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function client_notify(client, method, params)
  if HAS_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

local function client_cancel(client, id)
  if HAS_011 then
    return client:cancel_request(id)
  end
  return client.cancel_request(id)
end

-- Every running ctxls client, or those attached to bufnr.
local function ctxls_clients(bufnr)
  local list
  if HAS_010 then
    list = vim.lsp.get_clients({ bufnr = bufnr, name = NAME })
  elseif bufnr then
    list = vim.tbl_values(vim.lsp.buf_get_clients(bufnr))
  else
    list = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in ipairs(list) do
    if c.name == NAME then
      out[#out + 1] = c
    end
  end
  return out
end

-- The cursor position of window win in the client's position encoding.
local function cursor_position(win, client)
  local ok, p = pcall(vim.lsp.util.make_position_params, win, client.offset_encoding or 'utf-16')
  if ok and p then
    return p.position
  end
  local cur = vim.api.nvim_win_get_cursor(win)
  return { line = cur[1] - 1, character = cur[2] }
end

----------------------------------------------------------------------------
-- configuration

local function fail(msg)
  error('ctxls.setup: ' .. msg, 3)
end

local function check_config(c)
  if type(c.cmd) == 'string' then
    c.cmd = { c.cmd }
  end
  if type(c.cmd) ~= 'table' or not islist(c.cmd) or #c.cmd == 0 then
    fail('cmd must be a list like { "ctxls", "serve" }, got ' .. vim.inspect(c.cmd))
  end
  for i, a in ipairs(c.cmd) do
    if type(a) ~= 'string' or a == '' then
      fail(('cmd[%d] must be a non-empty string, got %s'):format(i, vim.inspect(a)))
    end
  end
  if type(c.share_index) ~= 'boolean' then
    fail('share_index must be true or false, got ' .. vim.inspect(c.share_index))
  end
  if type(c.init_options) ~= 'table' then
    fail('init_options must be a table, got ' .. type(c.init_options))
  end
  if type(c.root_markers) ~= 'table' or not islist(c.root_markers) then
    fail('root_markers must be a list of file names, got ' .. vim.inspect(c.root_markers))
  end
  if c.root_dir ~= nil and type(c.root_dir) ~= 'function' then
    fail('root_dir must be a function(bufnr, path) returning a directory, got ' .. type(c.root_dir))
  end
  if c.filetypes ~= nil and (type(c.filetypes) ~= 'table' or not islist(c.filetypes)) then
    fail('filetypes must be a list or nil, got ' .. vim.inspect(c.filetypes))
  end
  for _, k in ipairs({ 'limit', 'maxChars', 'maxCharsPerItem', 'maxTokens' }) do
    local v = c.request[k]
    if v ~= nil and (type(v) ~= 'number' or v < 1 or v ~= math.floor(v)) then
      fail(('request.%s must be a positive integer, got %s'):format(k, vim.inspect(v)))
    end
  end
  local mt = c.max_tokens
  if mt ~= nil and (type(mt) ~= 'number' or mt < 1 or mt ~= math.floor(mt)) then
    fail('max_tokens must be a positive integer or nil, got ' .. vim.inspect(mt))
  end
  if c.token_encoding ~= nil and type(c.token_encoding) ~= 'string' then
    fail("token_encoding must be 'o200k_base', 'cl100k_base' or nil, got " .. vim.inspect(c.token_encoding))
  end
  if not vim.tbl_contains({ 'auto', 'builtin', 'ui_select' }, c.picker) then
    fail("picker must be 'auto', 'builtin' or 'ui_select', got " .. vim.inspect(c.picker))
  end
  if type(c.results.open) ~= 'string' then
    fail('results.open must be an Ex command such as "botright split", got ' .. vim.inspect(c.results.open))
  end
end

local function config()
  if not state.config then
    M.setup({})
  end
  return state.config
end

--- The configuration in effect (setup's options over the defaults).
M.config = config

----------------------------------------------------------------------------
-- roots and clients

local function is_dir(path)
  local st = uv.fs_stat(path)
  return st ~= nil and st.type == 'directory'
end

-- find_root walks up from path's directory to the nearest directory holding
-- one of the markers.
local function find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while dir and dir ~= '' do
    for _, m in ipairs(markers) do
      if uv.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return nil
end

-- root_for returns the project root of a file buffer, or nil and why not.
local function root_for(bufnr)
  local c = config()
  if vim.bo[bufnr].buftype ~= '' then
    return nil, 'not a file buffer'
  end
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' or path:match('^%a[%w+.-]*://') then
    return nil, 'the buffer has no file name'
  end
  path = vim.fn.fnamemodify(path, ':p')
  if c.root_dir then
    local ok, dir = pcall(c.root_dir, bufnr, path)
    if not ok then
      return nil, 'root_dir failed: ' .. tostring(dir)
    end
    if dir and is_dir(dir) then
      return vim.fn.fnamemodify(dir, ':p'):gsub('[/\\]$', '')
    end
    return nil, 'root_dir found no root for ' .. path
  end
  local root = find_root(path, c.root_markers)
  if root then
    return root
  end
  -- No marker: the working directory when the file is inside it, unless
  -- that is the home or the file system root (too big to index by accident).
  local cwd = vim.fn.getcwd()
  local home = uv.os_homedir()
  if cwd ~= home and vim.fn.fnamemodify(cwd, ':h') ~= cwd and path:sub(1, #cwd + 1) == cwd .. '/' then
    return cwd
  end
  return nil, ('no project root above %s (none of %s)'):format(path, table.concat(c.root_markers, ', '))
end

local function filetype_allowed(bufnr)
  local fts = config().filetypes
  return fts == nil or vim.tbl_contains(fts, vim.bo[bufnr].filetype)
end

local function status_of(client_id)
  local st = state.status[client_id]
  if not st then
    st = { indexing = false, ready = false }
    state.status[client_id] = st
  end
  return st
end

-- on_progress follows the server's work-done progress, then hands it to
-- Neovim's own handler (statusline plugins, LspProgress).
local function on_progress(err, result, ctx, cfg)
  local v = type(result) == 'table' and result.value or nil
  if type(v) == 'table' then
    local st = status_of(ctx.client_id)
    if v.kind == 'begin' then
      st.indexing, st.message, st.percentage = true, v.message or v.title, v.percentage
    elseif v.kind == 'report' then
      st.message = v.message or st.message
      st.percentage = v.percentage or st.percentage
    elseif v.kind == 'end' then
      st.indexing, st.message, st.percentage = false, v.message, nil
      if type(v.message) == 'string' and v.message:match('^indexed ') then
        st.ready = true
      end
    end
  end
  local default = vim.lsp.handlers['$/progress']
  if default then
    return default(err, result, ctx, cfg)
  end
end

local function send_focus(client, bufnr, win)
  if not client.initialized then
    return
  end
  local uri = vim.uri_from_bufnr(bufnr)
  local params = { uri = uri }
  if win and vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == bufnr then
    params.position = cursor_position(win, client)
  end
  local key = uri
  if params.position then
    key = ('%s:%d:%d'):format(uri, params.position.line, params.position.character)
  end
  if state.focus[client.id] == key then
    return
  end
  state.focus[client.id] = key
  client_notify(client, 'ctxls/didFocus', params)
end

-- client_config is the vim.lsp client configuration for one root.
local function client_config(root)
  local c = config()
  return {
    name = NAME,
    cmd = c.share_index and vim.list_extend(vim.list_slice(c.cmd), { '--remote=auto' }) or c.cmd,
    cmd_env = c.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    -- An empty Lua table would be sent as [] and refused: send {}.
    init_options = next(c.init_options) and c.init_options or vim.empty_dict(),
    capabilities = c.capabilities,
    handlers = { ['$/progress'] = on_progress },
    on_init = function(client)
      status_of(client.id).root = root
      -- Tell the server where the user is as soon as it can hear it.
      vim.schedule(function()
        local buf = vim.api.nvim_get_current_buf()
        for _, cl in ipairs(ctxls_clients(buf)) do
          if cl.id == client.id then
            send_focus(client, buf, vim.api.nvim_get_current_win())
          end
        end
      end)
    end,
    on_exit = function(_, _, client_id)
      vim.schedule(function()
        if state.roots[root] == client_id then
          state.roots[root] = nil
        end
        state.status[client_id] = nil
        state.focus[client_id] = nil
      end)
    end,
    on_attach = c.on_attach,
  }
end

--- Attaches a file buffer to the ctxls server of its project, starting the
--- server when the project has none yet.
--- @param bufnr integer|nil buffer (default: current)
--- @return integer|nil client_id
--- @return string|nil why the buffer was not attached
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not vim.api.nvim_buf_is_valid(bufnr) then
    return nil, 'invalid buffer ' .. tostring(bufnr)
  end
  local existing = ctxls_clients(bufnr)[1]
  if existing then
    return existing.id
  end
  if not filetype_allowed(bufnr) then
    return nil, 'filetype ' .. vim.bo[bufnr].filetype .. ' is not in filetypes'
  end
  local root, why = root_for(bufnr)
  if not root then
    return nil, why
  end
  local c = config()
  if vim.fn.executable(c.cmd[1]) ~= 1 then
    local msg = ('cannot run %q: it is not an executable on PATH. Install ctxls '
      .. '(go install github.com/ctxls/ctxls/cmd/ctxls@latest) or set its path: '
      .. "require('ctxls').setup{ cmd = { '/path/to/ctxls', 'serve' } }"):format(c.cmd[1])
    notify_once('cmd:' .. c.cmd[1], msg, vim.log.levels.ERROR)
    return nil, msg
  end
  local id = state.roots[root]
  if id and not vim.lsp.get_client_by_id(id) then
    id = nil
  end
  if HAS_08 then
    local cfg = client_config(root)
    vim.api.nvim_buf_call(bufnr, function()
      id = vim.lsp.start(cfg, {
        bufnr = bufnr,
        reuse_client = function(client, conf)
          return client.name == NAME and client.config.root_dir == conf.root_dir
        end,
      })
    end)
  else
    if not id then
      id = vim.lsp.start_client(client_config(root))
    end
    if id then
      vim.lsp.buf_attach_client(bufnr, id)
    end
  end
  if not id then
    return nil, 'the server did not start for ' .. root
  end
  state.roots[root] = id
  status_of(id).root = root
  return id
end

----------------------------------------------------------------------------
-- selection

-- when_initialized runs fn once the client has finished initialize: a
-- request sent before would reach a server that is not ready. fail(msg)
-- runs instead when the server never gets there.
local function when_initialized(client, fn, fail, waited)
  waited = waited or 0
  if client.initialized then
    return fn()
  end
  if waited >= 15000 or not vim.lsp.get_client_by_id(client.id) then
    return fail('the ctxls server did not start; see :CtxlsStatus and :LspLog')
  end
  vim.defer_fn(function()
    when_initialized(client, fn, fail, waited + 25)
  end, 25)
end

local function lsp_error(err)
  if type(err) == 'table' then
    return { code = err.code, message = tostring(err.message or vim.inspect(err)) }
  end
  return { message = tostring(err) }
end

-- resolve finds the client to ask and the file buffer the request is about.
local function resolve(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  -- A file buffer speaks for itself: never answer it from another project.
  -- Other buffers (results, quickfix, help) use the last file entered.
  local is_file = vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].buftype == ''
    and vim.api.nvim_buf_get_name(bufnr) ~= ''
  local candidates = { bufnr }
  if not is_file and state.last_file_buf and state.last_file_buf ~= bufnr then
    candidates[#candidates + 1] = state.last_file_buf
  end
  local why
  for _, b in ipairs(candidates) do
    if vim.api.nvim_buf_is_valid(b) then
      local client = ctxls_clients(b)[1]
      if not client and b == bufnr and config().autostart then
        local id
        id, why = M.attach(b)
        client = id and vim.lsp.get_client_by_id(id) or nil
      end
      if client then
        return client, b
      end
    end
  end
  local all = is_file and {} or ctxls_clients(nil)
  if #all > 0 then
    local cwd = vim.fn.getcwd()
    for _, cl in ipairs(all) do
      local root = cl.config and cl.config.root_dir
      if root and (cwd == root or cwd:sub(1, #root + 1) == root .. '/') then
        return cl, nil
      end
    end
    return all[1], nil
  end
  if not why and vim.api.nvim_buf_is_valid(bufnr) then
    why = select(2, root_for(bufnr))
  end
  return nil, nil, 'no ctxls server for this buffer' .. (why and (': ' .. why) or '; open a file inside a project')
end

--- Asks the ctxls server of a buffer for context (workspace/contextSelect).
---
--- params are the request's fields (docs/protocol.md): query (required),
--- history, activeUri, position, limit, maxChars, maxCharsPerItem,
--- maxTokens, tokenEncoding, pinned, paths, excludePaths, kinds, minScore,
--- explain; plus bufnr (not sent):
--- the buffer whose server to ask and whose file and cursor to use as
--- activeUri and position when those are not given (default: current).
--- on_result(err, result) is called once, on the main loop; err is nil or
--- { code = integer|nil, message = string }.
--- @return function|nil cancel cancels the request
function M.select(params, on_result)
  if type(on_result) ~= 'function' then
    error('ctxls.select: on_result must be a function(err, result), got ' .. type(on_result), 2)
  end
  local function fail_later(msg)
    vim.schedule(function()
      on_result({ message = msg }, nil)
    end)
  end
  if type(params) ~= 'table' then
    fail_later('ctxls.select: params must be a table with a query, got ' .. type(params))
    return nil
  end
  if type(params.query) ~= 'string' or vim.trim(params.query) == '' then
    fail_later('ctxls.select: params.query must be a non-empty string')
    return nil
  end
  local c = config()
  local client, filebuf, why = resolve(params.bufnr)
  if not client then
    fail_later(why)
    return nil
  end
  local req = {}
  for k, v in pairs(params) do
    if k ~= 'bufnr' then
      req[k] = v
    end
  end
  for k, v in pairs(c.request) do
    if req[k] == nil then
      req[k] = v
    end
  end
  if req.maxTokens == nil then
    req.maxTokens = c.max_tokens
  end
  -- The items the user pinned in this project come first in every answer.
  local pins = state.pins[client.config and client.config.root_dir or '']
  if pins and #pins > 0 then
    local list, seen = {}, {}
    for _, id in ipairs(type(req.pinned) == 'table' and req.pinned or {}) do
      list[#list + 1], seen[id] = id, true
    end
    for _, id in ipairs(pins) do
      if not seen[id] then
        list[#list + 1], seen[id] = id, true
      end
    end
    req.pinned = list
  end
  if req.tokenEncoding == nil then
    req.tokenEncoding = c.token_encoding
  end
  if req.activeUri == nil and filebuf then
    req.activeUri = vim.uri_from_bufnr(filebuf)
    if req.position == nil then
      local win = vim.fn.bufwinid(filebuf)
      if vim.api.nvim_get_current_buf() == filebuf then
        win = vim.api.nvim_get_current_win()
      end
      if win ~= -1 then
        req.position = cursor_position(win, client)
      end
    end
  end
  local function handler(err, result)
    if err then
      on_result(lsp_error(err), nil)
      return
    end
    if type(result) == 'table' and type(result.stats) == 'table' then
      local st = status_of(client.id)
      st.stats = result.stats
      if result.stats.ready == true then
        st.ready = true
      end
    end
    on_result(nil, result, client)
  end
  local cancelled, request_id = false, nil
  when_initialized(client, function()
    if cancelled then
      on_result({ code = -32800, message = 'ctxls.select: cancelled' }, nil)
      return
    end
    local ok, id = client_request(client, 'workspace/contextSelect', req, handler, filebuf)
    if not ok then
      fail_later('the ctxls server has shut down: run :CtxlsRestart')
      return
    end
    request_id = id
  end, fail_later)
  return function()
    cancelled = true
    if request_id then
      client_cancel(client, request_id)
    end
  end
end

--- Like select, but waits up to timeout_ms (default 5000) for the answer.
--- @return table|nil result
--- @return table|nil err { code, message }
function M.select_sync(params, timeout_ms)
  local done, res, e = false, nil, nil
  local cancel = M.select(params, function(err, result)
    done, res, e = true, result, err
  end)
  local ok = vim.wait(timeout_ms or 5000, function()
    return done
  end, 10)
  if not ok then
    if cancel then
      cancel()
    end
    return nil, { message = ('ctxls.select_sync: no answer within %d ms'):format(timeout_ms or 5000) }
  end
  return res, e
end

--- Asks the server of client `id` for the stats of its index (a
--- one-item selection), waiting up to timeout_ms (default 5000). The
--- stats are kept for M.status().
--- @return table|nil stats (ready, files, symbols, embedder, ...)
--- @return string|nil err
function M.stats_sync(id, timeout_ms)
  local client = vim.lsp.get_client_by_id(id)
  if not client then
    return nil, 'no ctxls client with id ' .. tostring(id)
  end
  local done, stats, why = false, nil, nil
  when_initialized(client, function()
    local ok = client_request(client, 'workspace/contextSelect', { query = 'ctxls index status', limit = 1, maxChars = 1 }, function(err, result)
      if err then
        why = lsp_error(err).message
      elseif type(result) == 'table' and type(result.stats) == 'table' then
        stats = result.stats
        local st = status_of(id)
        st.stats = stats
        st.ready = st.ready or stats.ready == true
      else
        why = 'the server answered without stats'
      end
      done = true
    end)
    if not ok then
      why, done = 'the ctxls server has shut down', true
    end
  end, function(msg)
    why, done = msg, true
  end)
  if not vim.wait(timeout_ms or 5000, function()
    return done
  end, 10) then
    return nil, ('no answer within %d ms'):format(timeout_ms or 5000)
  end
  return stats, why
end

----------------------------------------------------------------------------
-- rendering

local function str(v, fallback)
  if type(v) == 'string' then
    return v
  end
  return fallback or ''
end

-- The first and last line (1-based) of the text an item holds. A range
-- that ends at the start of a line, after the previous line's newline,
-- does not hold that line.
local function item_lines(it)
  local r = type(it.range) == 'table' and it.range or {}
  local s = type(r.start) == 'table' and tonumber(r.start.line) or 0
  local e_pos = type(r['end']) == 'table' and r['end'] or {}
  local e = tonumber(e_pos.line) or s
  if e > s and tonumber(e_pos.character) == 0 then
    e = e - 1
  end
  return s + 1, math.max(e, s) + 1
end

-- Where to put the cursor for an item: its symbol (symbolRange, when the
-- text holds lines around it) or else its range's start; 1-based line,
-- 0-based column. Definitions start after ASCII indentation, so the
-- UTF-16 character is the byte column.
local function item_cursor(it)
  local r = type(it.symbolRange) == 'table' and it.symbolRange or type(it.range) == 'table' and it.range or {}
  local s = type(r.start) == 'table' and r.start or {}
  return (tonumber(s.line) or 0) + 1, tonumber(s.character) or 0
end

--- Why an item is in the selection, for a person: the server's `why`
--- sentence, or, from servers that send none, its reason (pinned, active,
--- retrieved, expanded).
--- @return string
function M.why(it)
  if type(it) ~= 'table' then
    return ''
  end
  if type(it.why) == 'string' and vim.trim(it.why) ~= '' then
    return vim.trim(it.why)
  end
  return str(it.reason, '?')
end

-- "part 2 of 3" when the item is one of several parts of one symbol.
local function item_part(it)
  local p = type(it.part) == 'table' and it.part or nil
  if p and tonumber(p.index) and tonumber(p.of) and tonumber(p.of) > 1 then
    return ('part %d of %d'):format(p.index, p.of)
  end
  return nil
end

-- path:first-last, the lines the item's text holds.
local function item_where(it)
  local first, last = item_lines(it)
  local where = ('%s:%d'):format(str(it.path, '?'), first)
  if last > first then
    where = where .. '-' .. last
  end
  return where
end

-- The heading of one item: path:lines symbol (kind, part i of n).
local function item_title(it)
  local meta = { str(it.kind, '?') }
  meta[#meta + 1] = item_part(it)
  local sym = str(it.symbol)
  local title = item_where(it)
  if sym ~= '' then
    title = title .. ' ' .. sym
  end
  return title .. ' (' .. table.concat(meta, ', ') .. ')'
end

--- One line naming an item for a list: path:lines symbol (kind) — why.
--- @return string
function M.item_label(it)
  return item_title(it) .. ' — ' .. M.why(it)
end

local function summary(result)
  local items = type(result.items) == 'table' and result.items or {}
  local stats = type(result.stats) == 'table' and result.stats or {}
  local parts = { ('%d item%s'):format(#items, #items == 1 and '' or 's') }
  if type(result.usedChars) == 'number' then
    parts[#parts + 1] = ('%d chars'):format(result.usedChars)
  end
  if type(result.usedTokens) == 'number' then
    parts[#parts + 1] = ('%d tokens (%s)'):format(result.usedTokens, str(result.tokenEncoding, '?'))
  end
  if stats.ready == false then
    parts[#parts + 1] = 'index still building'
  elseif type(stats.symbols) == 'number' then
    parts[#parts + 1] = ('%d symbols indexed'):format(stats.symbols)
  end
  if type(stats.elapsedMs) == 'number' then
    parts[#parts + 1] = ('%.1f ms'):format(stats.elapsedMs)
  end
  return table.concat(parts, ', ')
end

--- Renders a contextSelect result as Markdown lines: a heading per item
--- (path:lines symbol (kind)), a line saying why it is there, and its text
--- in a fenced block, ready to paste into a chat. Also returns, for each item, its first and
--- last line in the returned list.
--- @return string[] lines
--- @return table spans { { first = integer, last = integer, item = table } }
function M.to_markdown(result, query)
  local lines, spans = {}, {}
  local function add(l)
    lines[#lines + 1] = l
  end
  if query then
    add('# ctxls: ' .. query)
    add('')
  end
  add(summary(result))
  if result.lowConfidence == true then
    add('')
    add('> Low confidence: nothing matched the query well.')
  end
  if type(result.stats) == 'table' and result.stats.ready == false then
    add('')
    add('> The index is still being built; results may be incomplete.')
  end
  local items = type(result.items) == 'table' and result.items or {}
  for _, it in ipairs(items) do
    add('')
    local first = #lines + 1
    add('## ' .. item_title(it))
    add('Why: ' .. M.why(it))
    add('```' .. str(it.language))
    local text = str(it.text):gsub('\r\n', '\n')
    for _, l in ipairs(vim.split(text, '\n', { plain = true })) do
      -- A line of backticks inside the text must not end the block early.
      add((l:gsub('^(%s*)```', '%1` ``')))
    end
    add('```')
    if it.truncated == true then
      add('(truncated)')
    end
    spans[#spans + 1] = { first = first, last = #lines, item = it }
  end
  return lines, spans
end

----------------------------------------------------------------------------
-- the current selection: what :CtxlsSelect and :CtxlsPick show, and what
-- remove, pin, re-run and yank act on

-- new_selection makes result the current selection. Items removed from the
-- previous selection of the same question in the same project stay out,
-- unless the answer has them pinned.
local function new_selection(query, result, root)
  local prev = state.selection
  local removed = {}
  if prev and prev.query == query and prev.root == root then
    removed = prev.removed
  end
  local items = {}
  for _, it in ipairs(type(result.items) == 'table' and result.items or {}) do
    if not (type(it.id) == 'string' and removed[it.id] and it.reason ~= 'pinned') then
      items[#items + 1] = it
    end
  end
  state.selection = { query = query, root = root, result = result, items = items, removed = removed }
  return state.selection
end

-- The selection as a result object to render: its items, and the chars
-- they hold when some were removed (the server's counts no longer apply).
local function selection_result(sel)
  local r = {}
  for k, v in pairs(sel.result) do
    r[k] = v
  end
  r.items = sel.items
  if #sel.items ~= #(type(sel.result.items) == 'table' and sel.result.items or {}) then
    local chars = 0
    for _, it in ipairs(sel.items) do
      chars = chars + vim.fn.strchars(str(it.text))
    end
    r.usedChars, r.usedTokens = chars, nil
  end
  return r
end

-- What to tell the user when a selection has nothing to show.
local function nothing_message(sel)
  local res = sel.result
  if res.lowConfidence == true then
    return ('nothing in the project matched %q well, so no context was selected. '
      .. 'Name a function, type, file or term from the code, or ask from inside the code you mean.'):format(sel.query)
  end
  if type(res.stats) == 'table' and res.stats.ready == false then
    return ('no context for %q yet: the index is still being built (:CtxlsStatus)'):format(sel.query)
  end
  if type(res.items) == 'table' and #res.items > 0 then
    return ('every item selected for %q has been removed'):format(sel.query)
  end
  return ('no context selected for %q'):format(sel.query)
end

--- The current selection: the last answer :CtxlsSelect, :CtxlsPick or a
--- re-run showed, less the items removed from it, or nil.
--- @return table|nil { query, root, result, items, removed = { [id] = true } }
function M.selection()
  return state.selection
end

--- The ids pinned in the current selection's project (or in root), in the
--- order they were pinned.
--- @return string[]
function M.pins(root)
  root = root or (state.selection and state.selection.root)
  return vim.deepcopy(state.pins[root or ''] or {})
end

--- Pins (or, when it is pinned, unpins) an item of the current selection
--- by id: every later selection in its project sends it in `pinned`, so
--- it comes first whatever the question.
--- @return boolean|nil pinned whether it is pinned now (nil: no such item)
function M.toggle_pin(id)
  local sel = state.selection
  if not sel or type(id) ~= 'string' then
    return nil
  end
  local key = sel.root or ''
  local pins = state.pins[key] or {}
  for i, p in ipairs(pins) do
    if p == id then
      table.remove(pins, i)
      state.pins[key] = pins
      return false
    end
  end
  pins[#pins + 1] = id
  state.pins[key] = pins
  return true
end

--- Removes an item from the current selection by id (and unpins it). A
--- re-run of the same question leaves it out too.
--- @return boolean removed
function M.remove(id)
  local sel = state.selection
  if not sel or type(id) ~= 'string' then
    return false
  end
  for i, it in ipairs(sel.items) do
    if it.id == id then
      table.remove(sel.items, i)
      sel.removed[id] = true
      local pins = state.pins[sel.root or ''] or {}
      for j, p in ipairs(pins) do
        if p == id then
          table.remove(pins, j)
          break
        end
      end
      return true
    end
  end
  return false
end

--- The current selection as Markdown (the results buffer's rendering).
--- @return string[] lines
function M.selection_markdown()
  local sel = state.selection
  if not sel then
    return {}
  end
  return (M.to_markdown(selection_result(sel), sel.query))
end

--- Puts the current selection, as Markdown, in the unnamed register and,
--- when Neovim has a clipboard, in "+.
--- @return integer|nil lines yanked (nil: no selection)
function M.yank_selection()
  local lines = M.selection_markdown()
  if #lines == 0 then
    notify('no selection to yank: :CtxlsSelect {query} first', vim.log.levels.WARN)
    return nil
  end
  vim.fn.setreg('"', lines, 'l')
  if vim.fn.has('clipboard') == 1 then
    pcall(vim.fn.setreg, '+', lines, 'l')
  end
  notify(('yanked %d item%s as Markdown (%d lines)'):format(#state.selection.items,
    #state.selection.items == 1 and '' or 's', #lines))
  return #lines
end

-- run asks query and makes the answer the current selection; show(sel)
-- runs when it has items, a message says why when it has none.
local function run(query, show)
  M.select({ query = query }, function(err, result, client)
    if err then
      notify(('select %q failed: %s'):format(query, err.message), vim.log.levels.ERROR)
      return
    end
    local sel = new_selection(query, result, client and client.config and client.config.root_dir)
    if #sel.items == 0 then
      notify(nothing_message(sel), vim.log.levels.WARN)
      return
    end
    show(sel)
  end)
end

--- Asks the current selection's question again (with the pins), and calls
--- show(selection) with the new answer when it has items.
function M.rerun(show)
  local sel = state.selection
  if not sel then
    notify('no selection to re-run: :CtxlsSelect {query} first', vim.log.levels.WARN)
    return
  end
  run(sel.query, show or function() end)
end

----------------------------------------------------------------------------
-- opening an item

local NS = vim.api.nvim_create_namespace('ctxls')

local function define_highlights()
  vim.cmd('highlight default link CtxlsRange Visual')
end
define_highlights()

local function clear_highlight()
  local b = state.highlighted
  if b and vim.api.nvim_buf_is_valid(b) then
    vim.api.nvim_buf_clear_namespace(b, NS, 0, -1)
  end
  state.highlighted = nil
end

--- Clears the highlight of the item opened last.
M.clear_highlight = clear_highlight

--- Opens an item's file in win (default: the current window, or a new
--- split when that shows the results buffer), puts the cursor at the
--- first line of its symbol (symbolRange, else range) and highlights the
--- lines its text holds (range) with CtxlsRange, without selecting them.
--- The highlight goes when you open another item or enter Insert mode in
--- that buffer.
--- @return integer|nil bufnr the file's buffer
function M.open(item, win)
  if type(item) ~= 'table' or type(item.uri) ~= 'string' then
    notify('no item to open', vim.log.levels.WARN)
    return nil
  end
  if item.uri == '' then
    -- A memory note or a tool: it has no file to open.
    notify(('%s is a %s, not in a file'):format(str(item.id, '?'), str(item.kind, 'item')), vim.log.levels.INFO)
    return nil
  end
  if win and vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
  if state.results[vim.api.nvim_get_current_buf()] or vim.api.nvim_win_get_config(0).relative ~= '' then
    vim.cmd('aboveleft split')
  end
  local fname = vim.uri_to_fname(item.uri)
  local ok, err = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(fname))
  if not ok then
    notify(('cannot open %s: %s'):format(fname, tostring(err):gsub('^Vim%(%a+%):', '')), vim.log.levels.ERROR)
    return nil
  end
  local buf = vim.api.nvim_get_current_buf()
  local count = vim.api.nvim_buf_line_count(buf)
  local first, last = item_lines(item)
  first, last = math.min(first, count), math.min(last, count)
  clear_highlight()
  local last_text = vim.api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
  vim.api.nvim_buf_set_extmark(buf, NS, first - 1, 0, {
    end_row = last - 1,
    end_col = #last_text,
    hl_group = 'CtxlsRange',
    hl_eol = true,
    priority = 150,
  })
  state.highlighted = buf
  vim.api.nvim_create_autocmd('InsertEnter', {
    buffer = buf,
    once = true,
    callback = function()
      if state.highlighted == buf then
        clear_highlight()
      end
    end,
    desc = 'ctxls: clear the opened item highlight',
  })
  local line, col = item_cursor(item)
  pcall(vim.api.nvim_win_set_cursor, 0, { math.min(line, count), col })
  vim.cmd('normal! zv')
  return buf
end

----------------------------------------------------------------------------
-- the results buffer

local show_results

-- The item whose text the cursor of the results buffer is in.
local function item_under_cursor(buf)
  local res = state.results[buf]
  if not res then
    return nil
  end
  local row = vim.api.nvim_win_get_cursor(0)[1]
  for l = row, 1, -1 do
    if res.items[l] then
      return res.items[l]
    end
  end
  return nil
end

local function results_buffer()
  for b, _ in pairs(state.results) do
    if vim.api.nvim_buf_is_valid(b) then
      return b
    end
    state.results[b] = nil
  end
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = 'nofile'
  vim.bo[b].bufhidden = 'hide'
  vim.bo[b].swapfile = false
  pcall(vim.api.nvim_buf_set_name, b, RESULTS_NAME)
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = b, desc = 'ctxls: ' .. desc })
  end
  map('<CR>', function()
    M.open_item()
  end, 'open the item under the cursor')
  map('d', function()
    local it = item_under_cursor(b)
    if it and M.remove(it.id) then
      show_results(state.selection)
    end
  end, 'remove the item under the cursor from the selection')
  map('p', function()
    local it = item_under_cursor(b)
    local pinned = it and M.toggle_pin(it.id)
    if pinned ~= nil then
      notify(('%s %s: %s'):format(pinned and 'pinned' or 'unpinned', str(it.id),
        pinned and 'every question in this project gets it first' or 'selected by relevance again'))
    end
  end, 'pin or unpin the item under the cursor')
  map('r', function()
    M.rerun(function(sel)
      show_results(sel)
    end)
  end, 'ask the same question again')
  map('y', function()
    M.yank_selection()
  end, 'yank the selection as Markdown')
  map('q', '<cmd>close<CR>', 'close the results')
  state.results[b] = { items = {} }
  return b
end

show_results = function(sel)
  local c = config()
  local lines, spans = M.to_markdown(selection_result(sel), sel.query)
  local buf = results_buffer()
  local cursor_item
  local old_win = vim.fn.bufwinid(buf)
  if old_win ~= -1 and vim.api.nvim_get_current_buf() == buf then
    cursor_item = item_under_cursor(buf)
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local by_line = {}
  for _, sp in ipairs(spans) do
    by_line[sp.first] = sp.item
  end
  state.results[buf] = { items = by_line, query = sel.query }

  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd(c.results.open)
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, buf)
    if c.results.height and not c.results.open:match('vert') then
      pcall(vim.api.nvim_win_set_height, win, c.results.height)
    end
  else
    vim.api.nvim_set_current_win(win)
  end
  if vim.bo[buf].filetype ~= 'markdown' then
    -- Set once it is shown: ftplugins set window options on the current window.
    vim.api.nvim_win_call(win, function()
      vim.bo[buf].filetype = 'markdown'
    end)
  end
  -- One manual fold per item; folds are window-local, so make them here.
  vim.wo[win].foldmethod = 'manual'
  vim.wo[win].foldenable = true
  vim.api.nvim_win_call(win, function()
    vim.cmd('silent! normal! zE')
    for _, sp in ipairs(spans) do
      local last = sp.last
      -- Take the blank line that separates it from the next item.
      if last < #lines and lines[last + 1] == '' then
        last = last + 1
      end
      vim.cmd(('%d,%dfold'):format(sp.first, last))
    end
  end)
  vim.wo[win].foldlevel = c.results.folded and 0 or 99
  -- Stay near the item the cursor was on (the one after a removed one).
  local row = spans[1] and spans[1].first or 1
  if cursor_item then
    for _, sp in ipairs(spans) do
      row = sp.first
      if sp.item == cursor_item or sp.item.id == cursor_item.id then
        break
      end
    end
  end
  vim.api.nvim_win_set_cursor(win, { row, 0 })
  return buf, win
end

--- Opens the item under the cursor in the results buffer (see M.open), in
--- the previous window.
function M.open_item()
  local buf = vim.api.nvim_get_current_buf()
  if not state.results[buf] then
    return
  end
  local item = item_under_cursor(buf)
  if not item then
    notify('no item under the cursor', vim.log.levels.WARN)
    return
  end
  vim.cmd('wincmd p')
  M.open(item)
end

local function fill_quickfix(sel)
  local qf = {}
  for _, it in ipairs(sel.items) do
    if type(it.uri) == 'string' and it.uri ~= '' then
      local first, last = item_lines(it)
      local line, col = item_cursor(it)
      local sym = str(it.symbol)
      qf[#qf + 1] = {
        filename = vim.uri_to_fname(it.uri),
        lnum = line,
        end_lnum = math.max(last, line),
        col = col + 1,
        text = ('%s(%s, lines %d-%d): %s'):format(sym ~= '' and (sym .. ' ') or '', str(it.kind, '?'), first, last, M.why(it)),
      }
    end
  end
  vim.fn.setqflist({}, ' ', { title = 'ctxls: ' .. sel.query, items = qf })
  return #qf
end

--- The :CtxlsSelect command: select context for query and show it in the
--- results buffer, or in the quickfix list when quickfix is true. An
--- answer with no items is a message, not an empty list.
function M.command_select(query, quickfix)
  query = vim.trim(query or '')
  if query == '' then
    notify('usage: :CtxlsSelect {query}', vim.log.levels.ERROR)
    return
  end
  run(query, function(sel)
    if quickfix then
      if fill_quickfix(sel) > 0 then
        vim.cmd('botright copen')
      end
      notify(summary(selection_result(sel)) .. (sel.result.lowConfidence == true and ' (low confidence)' or ''))
    else
      show_results(sel)
    end
  end)
end

--- The :CtxlsPick command: pick from the current selection, or from the
--- answer to query when one is given (see :help ctxls-picker).
function M.command_pick(query)
  query = vim.trim(query or '')
  if query ~= '' then
    run(query, function(sel)
      require('ctxls.pick').pick(sel)
    end)
    return
  end
  local sel = state.selection
  if not sel then
    notify('no selection yet: :CtxlsPick {query}', vim.log.levels.WARN)
    return
  end
  if #sel.items == 0 then
    notify(nothing_message(sel), vim.log.levels.WARN)
    return
  end
  require('ctxls.pick').pick(sel)
end

----------------------------------------------------------------------------
-- status

--- Reports each running ctxls server: its root, whether the first index is
--- built (ready), what it is doing (message, percentage) and the stats of
--- the last selection.
--- @return table[] { id, root, ready, indexing, message, percentage, stats }
function M.status()
  local out = {}
  for _, cl in ipairs(ctxls_clients(nil)) do
    local st = status_of(cl.id)
    out[#out + 1] = {
      id = cl.id,
      root = st.root or (cl.config and cl.config.root_dir),
      ready = st.ready,
      indexing = st.indexing,
      message = st.message,
      percentage = st.percentage,
      stats = st.stats,
    }
  end
  table.sort(out, function(a, b)
    return a.id < b.id
  end)
  return out
end

--- A short status for the statusline: "ctxls: indexing 40%" or "ctxls"
--- when the current buffer's server is ready, "" without one.
function M.statusline()
  local cl = ctxls_clients(vim.api.nvim_get_current_buf())[1]
  if not cl then
    return ''
  end
  local st = status_of(cl.id)
  if st.indexing then
    return 'ctxls: indexing' .. (st.percentage and (' ' .. st.percentage .. '%') or '')
  end
  return st.ready and 'ctxls' or 'ctxls: starting'
end

--- The :CtxlsStatus command.
function M.command_status()
  local list = M.status()
  if #list == 0 then
    local _, why = root_for(vim.api.nvim_get_current_buf())
    notify('no server running' .. (why and (' for this buffer: ' .. why) or ''))
    return
  end
  local lines = {}
  for _, s in ipairs(list) do
    local what = s.indexing and ('indexing: ' .. tostring(s.message or ''))
      or (s.ready and 'ready' or 'starting')
    if not s.indexing and s.message then
      what = what .. ' (' .. s.message .. ')'
    end
    lines[#lines + 1] = ('[%d] %s: %s'):format(s.id, tostring(s.root), what)
  end
  notify(table.concat(lines, '\n'))
end

--- Stops every ctxls server this plugin started and starts them again for
--- the loaded buffers.
function M.restart()
  local ids = {}
  for _, id in pairs(state.roots) do
    ids[#ids + 1] = id
  end
  if #ids > 0 then
    vim.lsp.stop_client(ids)
    vim.wait(3000, function()
      for _, id in ipairs(ids) do
        if vim.lsp.get_client_by_id(id) then
          return false
        end
      end
      return true
    end, 20)
  end
  state.roots, state.focus = {}, {}
  for _, id in ipairs(ids) do
    state.status[id] = nil
  end
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.attach(b)
    end
  end
end

----------------------------------------------------------------------------
-- setup

--- Defines :CtxlsSelect[!], :CtxlsPick, :CtxlsStatus and :CtxlsRestart (plugin/ctxls.lua
--- and setup() call it; defining them again replaces them).
function M.define_commands()
  vim.api.nvim_create_user_command('CtxlsSelect', function(cmd)
    M.command_select(cmd.args, cmd.bang)
  end, { nargs = '+', bang = true, desc = 'ctxls: select context for a query (! fills the quickfix list)' })
  vim.api.nvim_create_user_command('CtxlsPick', function(cmd)
    M.command_pick(cmd.args)
  end, { nargs = '*', desc = 'ctxls: pick from the selection (or from the answer to a query): open, remove, pin' })
  vim.api.nvim_create_user_command('CtxlsStatus', function()
    M.command_status()
  end, { nargs = 0, desc = 'ctxls: show each server and its index' })
  vim.api.nvim_create_user_command('CtxlsRestart', function()
    M.restart()
  end, { nargs = 0, desc = 'ctxls: restart the servers' })
end

--- Configures the plugin, starts servers for loaded file buffers and
--- installs the autocommands that attach new buffers and send
--- ctxls/didFocus. Calling it again replaces the configuration.
--- See :help ctxls-setup for the options.
function M.setup(opts)
  if opts ~= nil and type(opts) ~= 'table' then
    error('ctxls.setup: expected a table of options, got ' .. type(opts), 2)
  end
  local c = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if opts and opts.cmd then
    c.cmd = opts.cmd -- a list replaces, never merges index by index
  end
  if opts and opts.root_markers then
    c.root_markers = opts.root_markers
  end
  check_config(c)
  state.config = c
  M.define_commands()

  local group = vim.api.nvim_create_augroup('ctxls', { clear = true })
  if c.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'FileType' }, {
      group = group,
      callback = function(ev)
        M.attach(ev.buf)
      end,
      desc = 'ctxls: attach file buffers',
    })
  end
  vim.api.nvim_create_autocmd('ColorScheme', {
    group = group,
    callback = define_highlights,
    desc = 'ctxls: link CtxlsRange again after a colorscheme clears it',
  })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'CursorHold' }, {
    group = group,
    callback = function(ev)
      local client = ctxls_clients(ev.buf)[1]
      if client then
        state.last_file_buf = ev.buf
        send_focus(client, ev.buf, vim.api.nvim_get_current_win())
      end
    end,
    desc = 'ctxls: send ctxls/didFocus',
  })
  if c.autostart then
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) then
        M.attach(b)
      end
    end
  end
end

return M
