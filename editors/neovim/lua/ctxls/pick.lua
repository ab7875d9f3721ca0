-- The :CtxlsPick picker over the current selection: each item as
-- path:lines symbol (kind) — why, with actions to open it, remove it, pin
-- it, ask the same question again and yank everything as Markdown.
--
-- Two faces, one set of actions: vim.ui.select when a plugin (Telescope's
-- ui-select, fzf-lua, snacks, dressing) has replaced it, so you get your
-- own picker; otherwise a floating list with a preview of the focused
-- item's text. See :help ctxls-picker.

local M = {}

local function ctxls()
  return require('ctxls')
end

local function notify(msg, level)
  vim.notify('ctxls: ' .. msg, level or vim.log.levels.INFO)
end

local function pinned_set()
  local set = {}
  for _, id in ipairs(ctxls().pins()) do
    set[id] = true
  end
  return set
end

--- The label of an item in a picker: "* " before a pinned one.
function M.label(item, pinned)
  return (pinned and '* ' or '  ') .. ctxls().item_label(item)
end

--- Whether vim.ui.select is Neovim's own (a numbered prompt) or one a
--- plugin put in its place.
function M.ui_select_replaced()
  local info = debug.getinfo(vim.ui.select, 'S')
  local src = info and info.source or ''
  return not src:match('vim[/\\]ui%.lua$')
end

----------------------------------------------------------------------------
-- the shared actions

local actions = {}

function actions.open(item, origin)
  ctxls().open(item, origin)
end

function actions.remove(item)
  return ctxls().remove(item.id)
end

function actions.pin(item)
  local now = ctxls().toggle_pin(item.id)
  if now ~= nil then
    notify(('%s %s'):format(now and 'pinned' or 'unpinned', tostring(item.id)))
  end
  return now
end

function actions.rerun()
  ctxls().rerun(function(sel)
    M.pick(sel)
  end)
end

function actions.yank()
  ctxls().yank_selection()
end

----------------------------------------------------------------------------
-- vim.ui.select: a list of the items and two commands, then an action

local function ui_select_pick(sel, origin)
  local pinned = pinned_set()
  local choices = {}
  for _, it in ipairs(sel.items) do
    choices[#choices + 1] = { item = it }
  end
  choices[#choices + 1] = { action = 'rerun', label = ('Re-run %q'):format(sel.query) }
  choices[#choices + 1] = { action = 'yank', label = 'Yank all as Markdown' }
  local prompt = 'ctxls: ' .. sel.query .. (sel.result.lowConfidence == true and ' (low confidence)' or '')
  vim.ui.select(choices, {
    prompt = prompt,
    kind = 'ctxls',
    format_item = function(c)
      return c.item and M.label(c.item, pinned[c.item.id]) or c.label
    end,
  }, function(choice)
    if not choice then
      return
    end
    if choice.action then
      actions[choice.action]()
      return
    end
    local it = choice.item
    local what = {
      { action = 'open', label = 'Open' },
      { action = 'remove', label = 'Remove from the selection' },
      { action = 'pin', label = pinned[it.id] and 'Unpin' or 'Pin (include it in every question)' },
    }
    vim.ui.select(what, {
      prompt = ctxls().item_label(it),
      kind = 'ctxls.action',
      format_item = function(c)
        return c.label
      end,
    }, function(act)
      if not act then
        return
      end
      if act.action == 'open' then
        actions.open(it, origin)
        return
      end
      actions[act.action](it)
      -- Back to the list, to go on steering (once this picker has closed).
      if #sel.items > 0 then
        vim.schedule(function()
          M.pick(sel, origin)
        end)
      else
        notify('the selection is empty now')
      end
    end)
  end)
end

----------------------------------------------------------------------------
-- the built-in floating list and preview

local HELP = '<CR> open  d remove  p pin  r re-run  y yank all  q close'

local function scratch()
  local b = vim.api.nvim_create_buf(false, true)
  vim.bo[b].buftype = 'nofile'
  vim.bo[b].bufhidden = 'wipe'
  vim.bo[b].swapfile = false
  return b
end

local function preview_lines(it)
  local lines = { '## ' .. ctxls().item_label(it), '' }
  lines[#lines + 1] = '```' .. (type(it.language) == 'string' and it.language or '')
  local text = (type(it.text) == 'string' and it.text or ''):gsub('\r\n', '\n')
  for _, l in ipairs(vim.split(text, '\n', { plain = true })) do
    lines[#lines + 1] = l
  end
  lines[#lines + 1] = '```'
  return lines
end

local function float_pick(sel, origin)
  local cols, rows = vim.o.columns, vim.o.lines - vim.o.cmdheight
  local width = math.max(20, math.min(cols - 4, 140))
  local col = math.floor((cols - width) / 2)
  -- The list on top (header + items), the preview below it; 2 rows of
  -- border each.
  local list_h = math.max(2, math.min(#sel.items + 1, math.floor((rows - 4) / 3)))
  local prev_h = math.max(3, rows - 4 - list_h - 2)
  local list_buf, prev_buf = scratch(), scratch()
  local list_win = vim.api.nvim_open_win(list_buf, true, {
    relative = 'editor', row = 0, col = col, width = width, height = list_h,
    border = 'rounded', style = 'minimal',
  })
  local prev_win = vim.api.nvim_open_win(prev_buf, false, {
    relative = 'editor', row = list_h + 2, col = col, width = width, height = prev_h,
    border = 'rounded', style = 'minimal', focusable = false,
  })
  vim.wo[list_win].cursorline = true
  vim.wo[list_win].wrap = false
  vim.wo[prev_win].wrap = false
  vim.bo[prev_buf].filetype = 'markdown'
  local picker = { sel = sel, list_win = list_win, prev_win = prev_win, list_buf = list_buf }
  M.current = picker

  local closing = false
  local function close()
    if closing then
      return
    end
    closing = true
    for _, w in ipairs({ prev_win, list_win }) do
      if vim.api.nvim_win_is_valid(w) then
        pcall(vim.api.nvim_win_close, w, true)
      end
    end
    if M.current == picker then
      M.current = nil
    end
    if origin and vim.api.nvim_win_is_valid(origin) then
      vim.api.nvim_set_current_win(origin)
    end
  end
  picker.close = close

  local function current_item()
    local row = vim.api.nvim_win_get_cursor(list_win)[1]
    return sel.items[row - 1], row
  end

  local function preview()
    local it = current_item()
    if not vim.api.nvim_win_is_valid(prev_win) then
      return
    end
    local lines = it and preview_lines(it) or { HELP }
    vim.bo[prev_buf].modifiable = true
    vim.api.nvim_buf_set_lines(prev_buf, 0, -1, false, lines)
    vim.bo[prev_buf].modifiable = false
    pcall(vim.api.nvim_win_set_cursor, prev_win, { 1, 0 })
  end

  local function render(row)
    local pinned = pinned_set()
    local header = sel.query .. (sel.result.lowConfidence == true and '  (low confidence)' or '') .. '   ' .. HELP
    local lines = { header }
    for _, it in ipairs(sel.items) do
      lines[#lines + 1] = M.label(it, pinned[it.id])
    end
    vim.bo[list_buf].modifiable = true
    vim.api.nvim_buf_set_lines(list_buf, 0, -1, false, lines)
    vim.bo[list_buf].modifiable = false
    row = math.max(2, math.min(row or 2, #lines))
    vim.api.nvim_win_set_cursor(list_win, { row, 0 })
    preview()
  end
  picker.render = render

  local function map(lhs, fn)
    vim.keymap.set('n', lhs, fn, { buffer = list_buf, nowait = true })
  end
  local function on_item(fn)
    return function()
      local it, row = current_item()
      if it then
        fn(it, row)
      end
    end
  end
  map('<CR>', on_item(function(it)
    close()
    actions.open(it, origin)
  end))
  map('o', on_item(function(it)
    close()
    actions.open(it, origin)
  end))
  local function remove(it, row)
    actions.remove(it)
    if #sel.items == 0 then
      close()
      notify('the selection is empty now', vim.log.levels.INFO)
      return
    end
    render(row)
  end
  map('d', on_item(remove))
  map('x', on_item(remove))
  map('p', on_item(function(it, row)
    actions.pin(it)
    render(row)
  end))
  map('r', function()
    close()
    actions.rerun()
  end)
  map('y', function()
    close()
    actions.yank()
  end)
  map('q', close)
  map('<Esc>', close)

  vim.api.nvim_create_autocmd('CursorMoved', { buffer = list_buf, callback = preview })
  vim.api.nvim_create_autocmd('WinLeave', {
    buffer = list_buf,
    callback = function()
      vim.schedule(close)
    end,
  })
  render(2)
  return picker
end

--- Shows a picker over sel (default: the current selection), in the
--- picker the `picker` option names. Actions open in origin (default: the
--- current window).
function M.pick(sel, origin)
  sel = sel or ctxls().selection()
  if not sel or #sel.items == 0 then
    notify('nothing to pick: :CtxlsPick {query}', vim.log.levels.WARN)
    return
  end
  if M.current and M.current.close then
    M.current.close()
  end
  origin = origin or vim.api.nvim_get_current_win()
  if vim.api.nvim_win_get_config(origin).relative ~= '' then
    origin = nil
  end
  local mode = ctxls().config().picker
  if mode == 'ui_select' or (mode == 'auto' and M.ui_select_replaced()) then
    return ui_select_pick(sel, origin)
  end
  return float_pick(sel, origin)
end

return M
