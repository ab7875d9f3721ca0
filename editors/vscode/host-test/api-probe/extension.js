// Test extension for scripts/test-codeserver.sh: "ctxls probe: Run Probe"
// calls the ctxls extension as another extension would, through its
// exported API and through the language-model tool, and writes what came
// back (or the errors) as JSON to the file named by $CTXLS_PROBE_OUT.
const fs = require('node:fs');
const vscode = require('vscode');

const QUERY = 'expired coupon codes are still accepted at checkout';

async function probe() {
  const out = { api: null, apiError: null, badParams: null, tool: null, toolError: null, tools: [] };
  const api = await vscode.extensions.getExtension('ctxls.ctxls').activate();
  try {
    const res = await api.selectContext({ query: QUERY, limit: 5 });
    out.api = { paths: res.items.map((i) => i.path), symbols: res.items.map((i) => i.symbol), ready: res.stats.ready };
  } catch (err) {
    out.apiError = String(err && err.message);
  }
  try {
    await api.selectContext({ query: QUERY, limit: 1000 });
  } catch (err) {
    out.badParams = String(err && err.message);
  }
  out.tools = vscode.lm.tools.map((t) => t.name);
  try {
    const res = await vscode.lm.invokeTool('ctxls_selectContext', {
      input: { query: QUERY, limit: 8 }, // the default: a small limit would depend on the file the test left active
      toolInvocationToken: undefined,
    });
    out.tool = res.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
  } catch (err) {
    out.toolError = String(err && err.message);
  }
  return out;
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand('ctxlsProbe.run', async () => {
      const out = await probe().catch((err) => ({ fatal: String(err && err.stack) }));
      fs.writeFileSync(process.env.CTXLS_PROBE_OUT, JSON.stringify(out, null, 2));
    }),
  );
};
exports.deactivate = () => {};
