// The VS Code glue of the ctxls extension: it starts `ctxls serve` through
// vscode-languageclient (stdio), keeps the server told of the settings and
// of where the user is looking, shows the index in the status bar, and
// offers the commands, the exported API, the language-model tool (#ctxls),
// the @ctxls chat participant and `ctxls mcp` as an MCP server definition.
// In Restricted Mode it starts nothing and says so. Everything a test would want
// (params, rendering, finding the binary, debouncing, status) lives in
// modules that do not import `vscode`.

import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  LanguageClient,
  RevealOutputChannelOn,
  State,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';

import {
  CHAT_TOKEN_SHARE,
  chatHistory,
  explainMarkdown,
  mcpArgs,
  TOOL_NAME,
  TOOL_TOKEN_SHARE,
  tokenBudget,
  toolParams,
  type ToolInput,
} from './agent';
import { findServer, INSTALL_COMMAND } from './binary';
import { ContextView } from './contextView';
import { FocusReporter } from './focus';
import { serverLogLine } from './logs';
import type { ContextItem, ContextSelectParams, ContextSelectResult } from './protocol';
import { pickRows, resultTitle, toMarkdown } from './render';
import { ContextSelection } from './selection';
import { fetchStats, selectContext, sendConfiguration, sendFocus, waitUntilReady, type Rpc } from './session';
import { buildSelectParams, initializationOptions, readSettings, serveArgs, type Settings } from './settings';
import { onProgress, onStats, statusDetails, statusView, type Status } from './status';

export type { ContextItem, ContextSelectParams, ContextSelectResult, SelectStats } from './protocol';

/** The API other extensions get from `extensions.getExtension('ctxls.ctxls').activate()`. */
export interface CtxlsApi {
  /**
   * Selects context for a prompt (workspace/contextSelect). Fields left out
   * of params get the user's settings (limit, maxChars, maxCharsPerItem);
   * the server defaults activeUri to the document last focused. Rejects
   * with an Error saying what is wrong when the server is not available or
   * the params are invalid.
   */
  selectContext(params: ContextSelectParams): Promise<ContextSelectResult>;
}

/** Delay between the cursor coming to rest and ctxls/didFocus. */
const FOCUS_DELAY_MS = 200;

/** Starts the extension: the server, the status bar item and the commands. */
export function activate(context: vscode.ExtensionContext): CtxlsApi {
  const ext = new Extension();
  context.subscriptions.push(ext);
  if (vscode.workspace.isTrusted) void ext.start();
  else ext.restricted();
  return { selectContext: (params) => ext.select(params) };
}

/** Shown in Restricted Mode, where ctxls starts nothing. */
const RESTRICTED =
  'ctxls is off in Restricted Mode: it would start the ctxls binary (which a workspace setting can choose) and index every file of this folder. Trust the workspace to use it.';

/** Nothing to do: the Extension is disposed with the context's subscriptions. */
export function deactivate(): void {}

/**
 * Extension owns one language client at a time and everything that depends
 * on it. Methods run on the extension host's single thread; `generation`
 * tells a late callback of a replaced client to stand down.
 */
class Extension implements vscode.Disposable {
  private readonly output = vscode.window.createOutputChannel('ctxls', { log: true });
  private readonly statusItem = vscode.window.createStatusBarItem('ctxls.status', vscode.StatusBarAlignment.Right, 100);
  private readonly disposables: vscode.Disposable[] = [];
  private readonly focus: FocusReporter;
  private readonly view: ContextView;
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private serverPath = '';
  private generation = 0;
  private waitAbort: AbortController | undefined;
  private status: Status = { kind: 'starting' };
  private lastQuery = '';
  private readonly warned = new Set<string>();
  private readonly mcpChanged = new vscode.EventEmitter<void>();

  constructor() {
    this.focus = new FocusReporter((p) => {
      const rpc = this.runningRpc();
      if (rpc !== undefined) void sendFocus(rpc, p).catch((err) => this.output.debug(`didFocus: ${errorMessage(err)}`));
    }, FOCUS_DELAY_MS);
    this.statusItem.name = 'ctxls';
    this.statusItem.command = 'ctxls.showStatus';
    this.render();
    this.statusItem.show();
    this.disposables.push(
      this.output,
      this.statusItem,
      vscode.commands.registerCommand('ctxls.selectContext', () => this.selectCommand()),
      vscode.commands.registerCommand('ctxls.restartServer', () => this.restart()),
      vscode.commands.registerCommand('ctxls.showStatus', () => this.showStatus()),
      vscode.window.onDidChangeActiveTextEditor((ed) => this.focusOn(ed)),
      vscode.window.onDidChangeTextEditorSelection((e) => {
        if (e.textEditor === vscode.window.activeTextEditor) this.focusOn(e.textEditor);
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.configurationChanged(e)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.output.info('the workspace is trusted now: starting the server');
        void this.start();
        this.mcpChanged.fire();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.mcpChanged.fire()),
      this.mcpChanged,
    );
    this.view = new ContextView({
      select: (params) => this.select(params),
      askQuestion: () => this.askQuestion(),
      error: (message) => {
        void vscode.window
          .showErrorMessage(message.startsWith('ctxls:') ? message : `ctxls: ${message}`, 'Show Log')
          .then((c) => this.onChoice(c));
      },
    });
    this.disposables.push(this.view);
    this.registerAgentFeatures();
  }

  /** Restricted Mode: nothing starts; the status bar and a message say why. */
  restricted(): void {
    this.setStatus({ kind: 'stopped', reason: 'Restricted Mode: trust the workspace to start ctxls' });
    this.output.warn(RESTRICTED);
    void vscode.window.showWarningMessage(RESTRICTED, 'Manage Workspace Trust').then((choice) => {
      if (choice === 'Manage Workspace Trust') void vscode.commands.executeCommand('workbench.trust.manage');
    });
  }

  /**
   * The language-model tool (#ctxls), the @ctxls chat participant and the
   * MCP server definition, where this VS Code has the APIs.
   */
  private registerAgentFeatures(): void {
    const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
    if (typeof lm?.registerTool === 'function') {
      this.disposables.push(
        lm.registerTool<ToolInput>(TOOL_NAME, {
          prepareInvocation: (options) => ({
            invocationMessage: `ctxls: selecting context for "${String(options.input?.query ?? '').slice(0, 80)}"`,
          }),
          invoke: async (options) => {
            const params = toolParams(options.input);
            // The host says how many tokens the result may take (not every
            // version does): the items get their share of it.
            const budget = (options as unknown as { tokenizationOptions?: { tokenBudget?: unknown } }).tokenizationOptions?.tokenBudget;
            const maxTokens = tokenBudget(budget, TOOL_TOKEN_SHARE);
            if (maxTokens !== undefined) params.maxTokens = maxTokens;
            const res = await this.select(params);
            const text =
              res.items.length === 0
                ? `ctxls found no code for "${params.query}"${res.lowConfidence ? ': nothing in the workspace matched it well' : ''}${res.stats.ready ? '' : ' (the workspace is still being indexed)'}.`
                : toMarkdown(res.items, { query: params.query, lowConfidence: res.lowConfidence });
            return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
          },
        }),
      );
    }
    if (typeof vscode.chat?.createChatParticipant === 'function') {
      const participant = vscode.chat.createChatParticipant('ctxls.chat', (request, context, stream) =>
        this.chat(request, context, stream),
      );
      this.disposables.push(participant);
    }
    if (typeof lm?.registerMcpServerDefinitionProvider === 'function') {
      this.disposables.push(
        lm.registerMcpServerDefinitionProvider('ctxls.mcp', {
          onDidChangeMcpServerDefinitions: this.mcpChanged.event,
          provideMcpServerDefinitions: () => this.mcpServers(),
        }),
      );
    }
  }

  /** `ctxls mcp` over the workspace folders, once trusted and found. */
  private mcpServers(): vscode.McpServerDefinition[] {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    if (!vscode.workspace.isTrusted || folders.length === 0) return [];
    const found = findServer({ configured: this.settings().path, workspaceFolder: folders[0] });
    if (!found.found) return [];
    return [new vscode.McpStdioServerDefinition('ctxls', found.path, mcpArgs(folders, this.settings().shareIndex))];
  }

  /** @ctxls: the selected context for the prompt, or /explain: why. */
  private async chat(
    request: vscode.ChatRequest,
    context: vscode.ChatContext,
    stream: vscode.ChatResponseStream,
  ): Promise<vscode.ChatResult> {
    const query = request.prompt.trim();
    if (query === '') {
      stream.markdown('Ask about the code, e.g. `@ctxls where are expired coupons rejected?`, and I will select the code that answers it.');
      return {};
    }
    const history = chatHistory(context.history.map((t) => ('prompt' in t ? { prompt: t.prompt } : {})));
    stream.progress('Selecting context…');
    let res: ContextSelectResult;
    try {
      // The answer stays in the conversation: a share of the chat model's
      // input window, when the host says how large it is.
      const model = (request as unknown as { model?: { maxInputTokens?: unknown } }).model;
      const maxTokens = tokenBudget(model?.maxInputTokens, CHAT_TOKEN_SHARE);
      res = await this.select(maxTokens === undefined ? { query, history } : { query, history, maxTokens });
    } catch (err) {
      return { errorDetails: { message: errorMessage(err) } };
    }
    if (request.command === 'explain') {
      stream.markdown(explainMarkdown(query, res));
    } else if (res.items.length === 0) {
      stream.markdown(res.stats.ready ? 'Nothing in the workspace matched.' : 'Nothing matched yet: the workspace is still being indexed.');
    } else {
      stream.markdown(toMarkdown(res.items, { query, lowConfidence: res.lowConfidence }));
    }
    for (const item of res.items) {
      const r = item.range;
      stream.reference(new vscode.Location(vscode.Uri.parse(item.uri), new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character)));
    }
    return { metadata: { items: res.items.length, command: request.command ?? '' } };
  }

  dispose(): void {
    this.generation++;
    this.focus.reset();
    this.waitAbort?.abort();
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) void client.stop().catch(() => undefined);
    for (const d of this.disposables) d.dispose();
  }

  /** The settings, warning once per problem. */
  private settings(): Settings {
    const cfg = vscode.workspace.getConfiguration('ctxls');
    const { settings, problems } = readSettings((key) => cfg.get(key));
    for (const p of problems) {
      if (this.warned.has(p)) continue;
      this.warned.add(p);
      this.output.warn(p);
      void vscode.window.showWarningMessage(p);
    }
    return settings;
  }

  /** Starts a server; a second call while one starts waits for that one. */
  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.restricted();
      return;
    }
    const gen = ++this.generation;
    const settings = this.settings();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const found = findServer({ configured: settings.path, workspaceFolder: folder });
    if (!found.found) {
      this.setStatus({ kind: 'stopped', reason: 'the ctxls binary was not found' });
      this.output.error(`${found.message} ${found.fix}`);
      void this.offerFix(found.message, found.fix);
      return;
    }
    this.serverPath = found.path;
    this.output.info(`starting ${found.path} ${serveArgs(settings).join(' ')} (found via ${found.via})`);
    this.setStatus({ kind: 'starting' });

    const serverOptions: ServerOptions = {
      command: found.path,
      args: serveArgs(settings),
      transport: TransportKind.stdio,
      options: folder !== undefined ? { cwd: folder } : undefined,
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [{ scheme: 'file' }],
      initializationOptions: initializationOptions(settings),
      outputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // The server's stderr at its own levels, not all as errors.
      stdioOptions: {
        stdout: (input, out) => lines(input, (line) => out.info(line)),
        stderr: (input, out) =>
          lines(input, (line) => {
            const l = serverLogLine(line);
            if (!l.mirrored) out[l.level](l.message);
          }),
      },
      middleware: {
        // The status bar item is the one indexing indicator: the client's
        // own window progress is never begun (only its end is passed on,
        // which just lets the client forget the token).
        handleWorkDoneProgress: (_token, params, next) => {
          if (gen === this.generation) {
            this.setStatus(onProgress(this.status, params));
            if (params.kind === 'end') void this.refreshStats();
          }
          if (params.kind === 'end') next(_token, params);
        },
      },
    };
    const client = new LanguageClient('ctxls', 'ctxls', serverOptions, clientOptions);
    this.client = client;
    // Running also follows the client's own restarts after a crash.
    client.onDidChangeState((e) => {
      if (gen !== this.generation) return;
      if (e.newState === State.Running) {
        if (this.status.kind === 'stopped') this.setStatus({ kind: 'starting' });
        this.focus.reset();
        this.focusOn(vscode.window.activeTextEditor);
        void this.watchReadiness(client);
      } else if (e.newState === State.Stopped) {
        this.waitAbort?.abort();
        this.setStatus({ kind: 'stopped', reason: 'the server stopped (see the ctxls output)' });
      }
    });
    try {
      await client.start();
    } catch (err) {
      if (gen !== this.generation) return;
      this.setStatus({ kind: 'stopped', reason: `the server failed to start: ${errorMessage(err)}` });
      void vscode.window
        .showErrorMessage(`ctxls: the server failed to start: ${errorMessage(err)}`, 'Show Log', 'Restart Server')
        .then((choice) => this.onChoice(choice));
    }
  }

  /** Polls the stats into the status bar until the first index is built. */
  private async watchReadiness(client: LanguageClient): Promise<void> {
    this.waitAbort?.abort();
    const abort = new AbortController();
    this.waitAbort = abort;
    const gen = this.generation;
    try {
      await waitUntilReady(rpcOf(client), {
        timeoutMs: Number.MAX_SAFE_INTEGER,
        intervalMs: 1000,
        signal: abort.signal,
        onStats: (stats) => {
          if (gen === this.generation) this.setStatus(onStats(this.status, stats));
        },
      });
    } catch (err) {
      if (!abort.signal.aborted && gen === this.generation) this.output.warn(`status: ${errorMessage(err)}`);
    }
  }

  /** Asks the server for its stats and shows them. */
  private async refreshStats(): Promise<void> {
    const rpc = this.runningRpc();
    if (rpc === undefined) return;
    const gen = this.generation;
    try {
      const stats = await fetchStats(rpc);
      if (gen === this.generation) this.setStatus(onStats(this.status, stats));
    } catch (err) {
      this.output.warn(`status: ${errorMessage(err)}`);
    }
  }

  private async restart(): Promise<void> {
    this.waitAbort?.abort();
    this.focus.reset();
    await this.starting?.catch(() => undefined);
    const old = this.client;
    this.client = undefined;
    this.generation++;
    if (old !== undefined) {
      this.output.info('restarting the server');
      await old.stop().catch((err) => this.output.warn(`stopping the server: ${errorMessage(err)}`));
    }
    await this.start();
  }

  private configurationChanged(e: vscode.ConfigurationChangeEvent): void {
    if (!e.affectsConfiguration('ctxls')) return;
    if (e.affectsConfiguration('ctxls.path') || e.affectsConfiguration('ctxls.shareIndex')) {
      this.mcpChanged.fire();
      void this.restart();
      return;
    }
    const rpc = this.runningRpc();
    if (rpc === undefined) return;
    void sendConfiguration(rpc, this.settings()).catch((err) =>
      this.output.warn(`didChangeConfiguration: ${errorMessage(err)}`),
    );
  }

  private focusOn(editor: vscode.TextEditor | undefined): void {
    if (editor === undefined) return;
    const pos = editor.selection.active;
    this.focus.update(editor.document.uri.toString(), { line: pos.line, character: pos.character });
  }

  /** The client as an Rpc when it is running. */
  private runningRpc(): Rpc | undefined {
    const c = this.client;
    return c !== undefined && c.state === State.Running ? rpcOf(c) : undefined;
  }

  /** The running client, once started; rejects saying why there is none. */
  private async ready(): Promise<Rpc> {
    await this.starting;
    const rpc = this.runningRpc();
    if (rpc === undefined) {
      const reason = this.status.kind === 'stopped' ? this.status.reason : 'the server is not running';
      throw new Error(`ctxls: ${reason}. Run "ctxls: Restart Server" once it is fixed.`);
    }
    return rpc;
  }

  /** The exported selectContext. */
  async select(params: ContextSelectParams): Promise<ContextSelectResult> {
    const full = buildSelectParams(params, this.settings());
    const rpc = await this.ready();
    this.focus.flush();
    const res = await selectContext(rpc, full);
    this.setStatus(onStats(this.status, res.stats));
    return res;
  }

  /** The palette's question box; undefined when cancelled. */
  private async askQuestion(): Promise<string | undefined> {
    const query = await vscode.window.showInputBox({
      title: 'ctxls: Select Context',
      prompt: 'What are you about to ask? ctxls picks the code that answers it.',
      placeHolder: 'e.g. add a unique-args validator to the command parser',
      value: this.lastQuery,
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() === '' ? 'Type what you want context for.' : undefined),
    });
    if (query === undefined || query.trim() === '') return undefined;
    this.lastQuery = query.trim();
    return this.lastQuery;
  }

  /**
   * "ctxls: Select Context…": input box, then a quick pick of the results,
   * which the context view shows too. Works with no chat model: open an
   * item or copy them all.
   */
  private async selectCommand(): Promise<void> {
    const q = await this.askQuestion();
    if (q === undefined) return;

    const params: ContextSelectParams = { query: q };
    const editor = vscode.window.activeTextEditor;
    if (editor !== undefined && editor.document.uri.scheme === 'file') {
      params.activeUri = editor.document.uri.toString();
      params.position = { line: editor.selection.active.line, character: editor.selection.active.character };
    }
    const prev = this.view.selection;
    const pins = prev?.pinned ?? [];

    const pick = vscode.window.createQuickPick<Row>();
    pick.title = `ctxls: selecting context for "${q}"`;
    pick.placeholder = 'Selecting…';
    pick.busy = true;
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    let hidden = false;
    pick.onDidHide(() => {
      hidden = true;
      pick.dispose();
    });
    pick.show();

    let result: ContextSelectResult;
    try {
      result = await this.select(pins.length > 0 ? { ...params, pinned: [...pins] } : params);
    } catch (err) {
      pick.hide();
      const msg = errorMessage(err);
      void vscode.window
        .showErrorMessage(msg.startsWith('ctxls:') ? msg : `ctxls: ${msg}`, 'Show Log')
        .then((c) => this.onChoice(c));
      return;
    }
    const sel = prev !== undefined && prev.query === q ? prev.rerun(params, result) : new ContextSelection(params, result, pins);
    this.view.show(sel);
    if (hidden) return; // closed while the request ran: the view has it
    pick.busy = false;
    pick.title = resultTitle(q, result);
    if (sel.items.length === 0) {
      pick.placeholder = sel.message() ?? 'Nothing selected.';
      return;
    }

    const copyIcon = new vscode.ThemeIcon('copy');
    const copyButton: vscode.QuickInputButton = { iconPath: copyIcon, tooltip: 'Copy all as Markdown' };
    const copyItemButton: vscode.QuickInputButton = { iconPath: copyIcon, tooltip: 'Copy this item as Markdown' };
    const copyAll: Row = {
      label: sel.lowConfidence ? '$(copy) Copy all as Markdown anyway' : '$(copy) Copy all as Markdown',
      description: `${plural(sel.items.length, 'item')}, ${result.usedChars.toLocaleString('en-US')} chars`,
      detail: sel.lowConfidence ? 'Low confidence: nothing matched your question well' : 'For pasting into a chat',
      alwaysShow: true,
    };
    const rows: Row[] = pickRows({ ...result, items: [...sel.items] }).map((r) => ({
      label: `$(${r.icon}) ${r.label}`,
      description: r.description,
      detail: r.detail,
      buttons: [copyItemButton],
      item: r.item,
    }));
    pick.placeholder = 'Choose an item to open it, or copy the selection as Markdown';
    const separator: Row = { label: 'results', kind: vscode.QuickPickItemKind.Separator };
    // A weak answer is not offered first: its rows come before "copy".
    if (sel.lowConfidence) {
      pick.items = [...rows, { label: '', kind: vscode.QuickPickItemKind.Separator }, copyAll];
    } else {
      pick.buttons = [copyButton];
      pick.items = [copyAll, separator, ...rows];
    }

    const copy = async (items: readonly ContextItem[]): Promise<void> => {
      const md = toMarkdown(items, { query: q, lowConfidence: sel.lowConfidence });
      await vscode.env.clipboard.writeText(md);
      void vscode.window.showInformationMessage(
        `ctxls: copied ${plural(items.length, 'item')} (${md.length.toLocaleString('en-US')} chars) as Markdown.`,
      );
    };
    pick.onDidTriggerButton(() => {
      pick.hide();
      void copy(sel.items);
    });
    pick.onDidTriggerItemButton((e) => {
      if (e.item.item !== undefined) void copy([e.item.item]);
    });
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen === copyAll) void copy(sel.items);
      else if (chosen?.item !== undefined) void this.view.open(chosen.item);
    });
  }

  /** Shows the index status, refreshed. */
  private async showStatus(): Promise<void> {
    await this.refreshStats();
    const server = this.serverPath
      ? { path: this.serverPath, version: this.client?.initializeResult?.serverInfo?.version }
      : undefined;
    const lines = statusDetails(this.status, server);
    const show = this.status.kind === 'stopped' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    const choice = await show(`ctxls: ${lines.join(' ')}`, 'Show Log', 'Restart Server');
    await this.onChoice(choice);
  }

  private async offerFix(message: string, fix: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(
      `ctxls: ${message} ${fix}`,
      'Open Settings',
      'Copy Install Command',
      'Restart Server',
    );
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'ctxls.path');
    else if (choice === 'Copy Install Command') await vscode.env.clipboard.writeText(INSTALL_COMMAND);
    else await this.onChoice(choice);
  }

  private async onChoice(choice: string | undefined): Promise<void> {
    if (choice === 'Show Log') this.output.show(true);
    else if (choice === 'Restart Server') await this.restart();
  }

  private setStatus(s: Status): void {
    this.status = s;
    this.render();
  }

  private render(): void {
    const v = statusView(this.status);
    this.statusItem.text = v.text;
    this.statusItem.tooltip = v.tooltip;
    this.statusItem.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }
}

/** A quick-pick row: an item of the result, or the "copy all" action. */
interface Row extends vscode.QuickPickItem {
  item?: ContextItem;
}

/** The language client seen as the minimal Rpc the session helpers use. */
function rpcOf(client: LanguageClient): Rpc {
  return {
    sendRequest: (method, params) => client.sendRequest(method, params),
    sendNotification: (method, params) => client.sendNotification(method, params),
  };
}

/** Calls fn with each line of input. */
function lines(input: NodeJS.ReadableStream, fn: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false }).on('line', fn);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
