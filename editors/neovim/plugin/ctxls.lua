-- ctxls.nvim: the :Ctxls* commands. Servers start once
-- require('ctxls').setup{} has run, or on the first command with the
-- default options.
if vim.g.loaded_ctxls then
  return
end
vim.g.loaded_ctxls = true

if vim.fn.has('nvim-0.7') ~= 1 then
  vim.notify('ctxls: Neovim 0.7 or newer is required', vim.log.levels.ERROR)
  return
end

require('ctxls').define_commands()
