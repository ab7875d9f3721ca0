// The context view: the current selection in the side bar, grouped by
// file, each item with the lines its text holds and why it is there; open,
// remove and pin on items; re-run, copy all and send to chat on the view;
// "Add Symbol/File to Context" in the editor's context menu. The model is
// selection.ts; this is the VS Code glue.

import * as vscode from 'vscode';

import type { ContextItem, ContextSelectParams, ContextSelectResult } from './protocol';
import { addFileParams, addSymbolParams, ContextSelection, itemAt, itemKey, itemRow, openTarget, type FileGroup } from './selection';

/** The view's id (package.json views). */
export const VIEW_ID = 'ctxls.context';

type Node = { kind: 'file'; group: FileGroup } | { kind: 'item'; item: ContextItem };

/** What the view needs from the extension. */
export interface ViewHost {
  /** Runs workspace/contextSelect with the user's settings. */
  select(params: ContextSelectParams): Promise<ContextSelectResult>;
  /** Asks for a question (the palette's input box); undefined when cancelled. */
  askQuestion(): Promise<string | undefined>;
  /** Reports an error to the user, one line. */
  error(message: string): void;
}

export class ContextView implements vscode.Disposable, vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly highlight: vscode.TextEditorDecorationType;
  private highlighted: vscode.TextEditor | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private sel: ContextSelection | undefined;

  constructor(private readonly host: ViewHost) {
    this.view = vscode.window.createTreeView(VIEW_ID, { treeDataProvider: this, showCollapseAll: true });
    this.highlight = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      backgroundColor: new vscode.ThemeColor('ctxls.itemHighlightBackground'),
      overviewRulerColor: new vscode.ThemeColor('ctxls.itemHighlightBackground'),
      overviewRulerLane: vscode.OverviewRulerLane.Left,
    });
    const item = (fn: (it: ContextItem) => unknown) => (node?: Node) => {
      const it = node?.kind === 'item' ? node.item : this.focusedItem();
      return it !== undefined ? fn(it) : undefined;
    };
    this.disposables.push(
      this.view,
      this.highlight,
      this.changed,
      vscode.commands.registerCommand('ctxls.showView', () => vscode.commands.executeCommand(`${VIEW_ID}.focus`)),
      vscode.commands.registerCommand('ctxls.view.rerun', () => this.rerun()),
      vscode.commands.registerCommand('ctxls.view.copyAll', () => this.copyAll()),
      vscode.commands.registerCommand('ctxls.view.sendToChat', () => this.sendToChat()),
      vscode.commands.registerCommand('ctxls.item.open', item((it) => this.open(it))),
      vscode.commands.registerCommand('ctxls.item.remove', item((it) => this.remove(it))),
      vscode.commands.registerCommand('ctxls.item.pin', item((it) => this.pin(it))),
      vscode.commands.registerCommand('ctxls.addSymbol', () => this.addFromEditor('symbol')),
      vscode.commands.registerCommand('ctxls.addFile', (uri?: vscode.Uri) => this.addFromEditor('file', uri)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.highlighted?.document === e.document) this.clearHighlight();
      }),
    );
    this.update();
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }

  /** The current selection, if any. */
  get selection(): ContextSelection | undefined {
    return this.sel;
  }

  /** Shows a new selection (from the palette, a re-run or an add). */
  show(sel: ContextSelection): void {
    this.sel = sel;
    this.update();
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'file') {
      const g = node.group;
      const slash = g.path.lastIndexOf('/');
      const t = new vscode.TreeItem(slash >= 0 ? g.path.slice(slash + 1) : g.path, vscode.TreeItemCollapsibleState.Expanded);
      t.id = `file:${g.path}`;
      t.description = slash >= 0 ? g.path.slice(0, slash) : '';
      if (g.uri !== '') t.resourceUri = vscode.Uri.parse(g.uri);
      t.iconPath = vscode.ThemeIcon.File;
      t.contextValue = 'ctxls.file';
      t.tooltip = `${g.path}: ${g.items.length} item${g.items.length === 1 ? '' : 's'}`;
      return t;
    }
    const it = node.item;
    const pinned = this.sel?.isPinned(it) ?? false;
    const row = itemRow(it, pinned);
    const t = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
    t.id = itemKey(it);
    t.description = row.description;
    t.iconPath = new vscode.ThemeIcon(row.icon);
    const tip = new vscode.MarkdownString(row.tooltip);
    tip.supportThemeIcons = false;
    t.tooltip = tip;
    t.accessibilityInformation = { label: row.ariaLabel };
    t.contextValue = pinned ? 'ctxls.item.pinned' : 'ctxls.item';
    if (it.uri !== '') t.command = { command: 'ctxls.item.open', title: 'Open', arguments: [node] };
    return t;
  }

  getChildren(node?: Node): Node[] {
    if (this.sel === undefined) return [];
    if (node === undefined) return this.sel.groups().map((group) => ({ kind: 'file', group }));
    if (node.kind === 'file') return node.group.items.map((item) => ({ kind: 'item', item }));
    return [];
  }

  /** Refreshes the tree, its message and the context keys the menus use. */
  private update(): void {
    const sel = this.sel;
    this.view.message = sel?.message();
    const n = sel?.items.length ?? 0;
    this.view.description = sel === undefined ? undefined : `${n} item${n === 1 ? '' : 's'}`;
    void vscode.commands.executeCommand('setContext', 'ctxls.hasSelection', sel !== undefined);
    void vscode.commands.executeCommand('setContext', 'ctxls.hasItems', n > 0);
    void vscode.commands.executeCommand('setContext', 'ctxls.lowConfidence', sel?.lowConfidence ?? false);
    this.changed.fire(undefined);
  }

  private focusedItem(): ContextItem | undefined {
    const n = this.view.selection[0];
    return n?.kind === 'item' ? n.item : undefined;
  }

  /**
   * Opens an item: the cursor at the symbol's first line, no selection,
   * and the lines the text holds highlighted.
   */
  async open(item: ContextItem): Promise<void> {
    if (item.uri === '') return; // a memory note or a tool: no file
    const t = openTarget(item);
    const pos = new vscode.Position(t.cursor.line, t.cursor.character);
    const editor = await vscode.window.showTextDocument(vscode.Uri.parse(item.uri), {
      selection: new vscode.Range(pos, pos),
      preview: true,
    });
    this.clearHighlight();
    editor.setDecorations(this.highlight, [new vscode.Range(t.firstLine, 0, t.lastLine, 0)]);
    this.highlighted = editor;
    editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  }

  private clearHighlight(): void {
    this.highlighted?.setDecorations(this.highlight, []);
    this.highlighted = undefined;
  }

  private remove(item: ContextItem): void {
    if (this.sel?.remove(itemKey(item))) this.update();
  }

  private pin(item: ContextItem): void {
    if (this.sel === undefined) return;
    this.sel.pin(item.id);
    this.update();
    void vscode.window.setStatusBarMessage(`ctxls: pinned ${item.symbol || item.path} for the next run`, 4000);
  }

  /** Asks the same question again, with the pins. */
  async rerun(): Promise<void> {
    const sel = this.sel;
    let params = sel?.rerunParams();
    if (params === undefined || params.query.trim() === '') {
      const q = await this.host.askQuestion();
      if (q === undefined) return;
      params = { ...(params ?? {}), query: q };
    }
    await this.run(params, sel);
  }

  /** Runs a request into the view, keeping prev's pins and removals. */
  async run(params: ContextSelectParams, prev = this.sel): Promise<ContextSelection | undefined> {
    try {
      const res = await vscode.window.withProgress({ location: { viewId: VIEW_ID } }, () => this.host.select(params));
      const { pinned: _drop, ...base } = params;
      void _drop;
      const next = prev !== undefined && prev.query === params.query ? prev.rerun(base, res) : new ContextSelection(base, res, prev?.pinned ?? []);
      this.show(next);
      return next;
    } catch (err) {
      this.host.error(err instanceof Error ? err.message : String(err));
      return undefined;
    }
  }

  /** Copies the selection, as shown, as Markdown. */
  async copyAll(): Promise<void> {
    const sel = this.sel;
    if (sel === undefined || sel.items.length === 0) {
      void vscode.window.showInformationMessage('ctxls: nothing to copy: the selection is empty.');
      return;
    }
    const md = sel.markdown();
    await vscode.env.clipboard.writeText(md);
    void vscode.window.showInformationMessage(`ctxls: copied ${plural(sel.items.length, 'item')} (${md.length.toLocaleString('en-US')} chars) as Markdown.`);
  }

  /**
   * Puts the selection into the chat's input, for the user to add a
   * question; with no chat model to answer, copies it instead and says so.
   */
  async sendToChat(): Promise<void> {
    const sel = this.sel;
    if (sel === undefined || sel.items.length === 0) {
      void vscode.window.showInformationMessage('ctxls: nothing to send: the selection is empty.');
      return;
    }
    const md = sel.markdown();
    if (await chatAvailable()) {
      try {
        await vscode.commands.executeCommand('workbench.action.chat.open', { query: md, isPartialQuery: true });
        return;
      } catch {
        // fall through to copying
      }
    }
    await vscode.env.clipboard.writeText(md);
    void vscode.window.showInformationMessage(
      `ctxls: no chat model is available here, so ${plural(sel.items.length, 'item')} were copied as Markdown instead: paste them into your chat.`,
    );
  }

  /**
   * "Add Symbol/File to Context": finds the symbol under the cursor (or the
   * file) in the index, adds it at the top of the selection and pins it
   * for the next run. Nothing is re-run.
   */
  private async addFromEditor(what: 'symbol' | 'file', target?: vscode.Uri): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    const uri = target ?? editor?.document.uri;
    if (uri === undefined || uri.scheme !== 'file') {
      this.host.error('ctxls: open a file of the workspace first.');
      return;
    }
    const rel = vscode.workspace.asRelativePath(uri, false);
    let item: ContextItem | undefined;
    try {
      if (what === 'file') {
        const res = await this.host.select(addFileParams(rel, uri.toString()));
        item = normalized(res.items).find((it) => it.uri === uri.toString());
      } else {
        if (editor === undefined || editor.document.uri.toString() !== uri.toString()) return;
        const pos = editor.selection.active;
        const word = editor.document.getWordRangeAtPosition(pos);
        const text = word !== undefined ? editor.document.getText(word) : '';
        const res = await this.host.select(addSymbolParams(rel, uri.toString(), text, { line: pos.line, character: pos.character }));
        item = itemAt(normalized(res.items), uri.toString(), { line: pos.line, character: pos.character });
        if (item === undefined) {
          this.host.error(`ctxls: the index has no symbol at line ${pos.line + 1} of ${rel}; use "Add File to Context" for the whole file.`);
          return;
        }
      }
    } catch (err) {
      this.host.error(err instanceof Error ? err.message : String(err));
      return;
    }
    if (item === undefined) {
      this.host.error(`ctxls: ${rel} is not in the index (it may be excluded, ignored or too large).`);
      return;
    }
    const added: ContextItem = { ...item, reason: 'pinned', why: 'you added this' };
    if (this.sel === undefined) {
      const empty: ContextSelectResult = { items: [], usedChars: 0, lowConfidence: false, stats: { ready: true, files: 0, symbols: 0, candidates: 0, elapsedMs: 0, embedder: '', merkleRoot: '' } };
      this.sel = new ContextSelection({ query: '' }, empty);
    }
    this.sel.add(added);
    this.update();
    await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  }
}

/** Items with their URIs as VS Code spells them, to compare with an editor's. */
function normalized(items: readonly ContextItem[]): ContextItem[] {
  return items.map((it) => (it.uri === '' ? it : { ...it, uri: vscode.Uri.parse(it.uri).toString() }));
}

/** Whether a chat model is installed that could answer. */
async function chatAvailable(): Promise<boolean> {
  const lm = vscode.lm as Partial<typeof vscode.lm> | undefined;
  if (typeof lm?.selectChatModels !== 'function') return false;
  try {
    return (await lm.selectChatModels()).length > 0;
  } catch {
    return false;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
