-- ctxls for Neovim's AI chat plugins: the selected context as a
-- codecompanion.nvim slash command, an avante.nvim custom tool and a
-- CopilotChat.nvim function. Each follows the plugin's documented
-- interface; none of them is required by ctxls. See :help ctxls-ai.

local M = {}

local function ctxls()
  return require('ctxls')
end

-- The context for query as Markdown (the :CtxlsSelect rendering), or nil
-- and an error message.
local function markdown(result, query)
  return table.concat((ctxls().to_markdown(result, query)), '\n')
end

-- Runs a selection and calls done(text, err) once, on the main loop.
local function select(params, done)
  ctxls().select(params, function(err, result)
    if err then
      done(nil, 'ctxls: ' .. tostring(err.message))
    else
      done(markdown(result, params.query), nil)
    end
  end)
end

-- Runs a selection and waits for it (the synchronous tool interfaces).
local function select_now(params, timeout_ms)
  local result, err = ctxls().select_sync(params, timeout_ms or 10000)
  if err then
    return nil, 'ctxls: ' .. tostring(err.message)
  end
  return markdown(result, params.query), nil
end

local function query_of(input)
  if type(input) == 'table' then
    input = input.query
  end
  if type(input) ~= 'string' or vim.trim(input) == '' then
    return nil, 'ctxls: query must be a non-empty string, got ' .. vim.inspect(input)
  end
  return vim.trim(input), nil
end

--- A codecompanion.nvim slash command: `/ctxls` asks what the context is
--- for (vim.ui.input) and adds the selected code to the chat as context.
--- Put it in setup{ interactions = { chat = { slash_commands = { ctxls = ... } } } }
--- (`strategies` instead of `interactions` before codecompanion v18).
--- opts: { limit, maxChars } for the request.
function M.codecompanion_slash_command(opts)
  opts = opts or {}
  return {
    description = 'Insert the code ctxls selects for a question',
    callback = function(chat)
      vim.ui.input({ prompt = 'ctxls: context for> ' }, function(input)
        local query = query_of(input)
        if not query then
          return
        end
        select({ query = query, limit = opts.limit, maxChars = opts.maxChars }, function(text, err)
          if err then
            vim.notify(err, vim.log.levels.ERROR)
            return
          end
          local id = '<ctxls>' .. query .. '</ctxls>'
          local data = { role = 'user', content = text }
          if type(chat.add_context) == 'function' then
            chat:add_context(data, 'ctxls', id)
          else -- codecompanion before v17
            chat:add_reference(data, 'ctxls', id)
          end
        end)
      end)
    end,
    opts = { contains_code = true },
  }
end

--- An avante.nvim custom tool the model can call: put it in
--- setup{ custom_tools = { require('ctxls.ai').avante_tool() } }.
function M.avante_tool(opts)
  opts = opts or {}
  return {
    name = 'ctxls_select_context',
    description = 'Select the code in this workspace most relevant to a task or question: ranked symbol slices '
      .. '(functions, types, doc sections) with their paths and lines, from the ctxls index. Use it before reading files one by one.',
    param = {
      type = 'table',
      fields = {
        { name = 'query', description = 'The task or question in plain words', type = 'string' },
        { name = 'limit', description = 'Maximum number of items (1-100, default 8)', type = 'integer', optional = true },
      },
    },
    returns = {
      { name = 'context', description = 'The selected code as Markdown', type = 'string' },
      { name = 'error', description = 'Why nothing could be selected', type = 'string', optional = true },
    },
    -- func(input, { on_complete = fn(result, err), on_log = fn }) on current
    -- avante; func(input, on_log, on_complete) on older releases.
    func = function(input, o, legacy_complete)
      local query, qerr = query_of(input)
      local on_complete = type(o) == 'table' and o.on_complete or legacy_complete
      if not query then
        return nil, qerr
      end
      local params = { query = query, limit = input.limit or opts.limit, maxChars = opts.maxChars }
      if type(on_complete) ~= 'function' then
        return select_now(params)
      end
      select(params, on_complete)
      return nil, nil -- answered through on_complete
    end,
  }
end

--- A CopilotChat.nvim function: `#ctxls:<query>` in a prompt, or a tool
--- the model calls (`@ctxls`). Put it in setup{ functions = { ctxls = ... } }.
function M.copilotchat_function(opts)
  opts = opts or {}
  return {
    description = 'Selects the code in this workspace most relevant to a task or question (ranked symbol slices from the ctxls index).',
    uri = 'ctxls://{query}',
    schema = {
      type = 'object',
      required = { 'query' },
      properties = {
        query = { type = 'string', description = 'The task or question in plain words' },
      },
    },
    resolve = function(input, source)
      local query, qerr = query_of(input)
      if not query then
        error(qerr, 0)
      end
      local params = { query = query, limit = opts.limit, maxChars = opts.maxChars }
      if type(source) == 'table' and type(source.bufnr) == 'number' and vim.api.nvim_buf_is_valid(source.bufnr) then
        params.bufnr = source.bufnr
      end
      local text, err
      local ok, async = pcall(require, 'plenary.async')
      if ok and coroutine.running() then
        -- CopilotChat resolves inside plenary.async: wait without blocking.
        text, err = async.wrap(select, 2)(params)
      else
        text, err = select_now(params)
      end
      if err then
        error(err, 0)
      end
      return { { uri = 'ctxls://' .. query, mimetype = 'text/markdown', data = text } }
    end,
  }
end

return M
