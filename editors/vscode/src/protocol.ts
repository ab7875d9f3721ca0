// The ctxls wire contract (docs/protocol.md) as TypeScript types: the
// params and result of workspace/contextSelect, the ctxls/didFocus
// notification and the server's initialization options. This module
// imports nothing, so the extension, its tests and other extensions can
// share it.

/** Method of the request that selects context. */
export const CONTEXT_SELECT = 'workspace/contextSelect';
/** Method of the notification telling the server where the user is looking. */
export const DID_FOCUS = 'ctxls/didFocus';

/** An LSP position: 0-based line, character in UTF-16 code units. */
export interface Position {
  line: number;
  character: number;
}

/** An LSP range. */
export interface Range {
  start: Position;
  end: Position;
}

/** The params of workspace/contextSelect. Only `query` is required. */
export interface ContextSelectParams {
  /** What the user is about to ask; required, non-empty. */
  query: string;
  /** Earlier prompts of the conversation, oldest first. */
  history?: string[];
  /** The document the user is in (a file:// URI). */
  activeUri?: string;
  /** The cursor in activeUri. */
  position?: Position;
  /** Maximum number of items (1–100). */
  limit?: number;
  /** Total character budget over all item texts. */
  maxChars?: number;
  /** Cap on one item's text. */
  maxCharsPerItem?: number;
  /**
   * Total token budget over all item texts, counted in tokenEncoding;
   * maxChars, when sent, bounds them too.
   */
  maxTokens?: number;
  /** "o200k_base" (the server's default) or "cl100k_base". */
  tokenEncoding?: string;
  /** URIs or item ids that are always included first. */
  pinned?: string[];
  /** Workspace-relative globs the items must match. */
  paths?: string[];
  /** Workspace-relative globs the items must not match. */
  excludePaths?: string[];
  /** Symbol kinds to keep (function, method, class, …). */
  kinds?: string[];
  /** Items scoring below this are dropped. */
  minScore?: number;
  /** Ask for each item's per-signal breakdown. */
  explain?: boolean;
  /**
   * False turns retrieval off: only pinned items (and rules that always
   * apply) come back.
   */
  retrieval?: boolean;
}

/** One source's opinion of an item. */
export interface Signal {
  rank: number;
  score: number;
}

/** Why an item was selected, as a machine-readable word. */
export type Reason = 'pinned' | 'active' | 'retrieved' | 'expanded';

/** Which part of a symbol an item is, when a symbol was split into several. */
export interface ItemPart {
  /** 1-based. */
  index: number;
  of: number;
}

/** One selected slice of the workspace. */
export interface ContextItem {
  /** "sym:<relpath>::<qualified name>" or "file:<relpath>". */
  id: string;
  uri: string;
  /** Relative to its workspace folder, forward slashes. */
  path: string;
  /** Qualified name; "" for file items. */
  symbol: string;
  kind: string;
  language: string;
  /** Exactly the lines the text holds: what a client shows, highlights and copies. */
  range: Range;
  /**
   * Where the item's symbol (from its doc comment) lies within range, when
   * the text holds lines around it; absent otherwise.
   */
  symbolRange?: Range;
  /** The slice of the document for range, capped at maxCharsPerItem. */
  text: string;
  truncated: boolean;
  score: number;
  reason: Reason | string;
  /**
   * One short sentence a person reads, saying why the item is there
   * ("calls `Command.findSuggestions` at args.go:36"); servers before it
   * leave it out, and clients fall back to reason.
   */
  why?: string;
  /** Set when the item is one of several parts of one symbol. */
  part?: ItemPart;
  signals?: Record<string, Signal>;
}

/** Describes the index a result was computed on. */
export interface SelectStats {
  /** False until the first full index is built. */
  ready: boolean;
  files: number;
  symbols: number;
  candidates: number;
  elapsedMs: number;
  embedder: string;
  merkleRoot: string;
  [extra: string]: unknown;
}

/** The result of workspace/contextSelect. */
export interface ContextSelectResult {
  items: ContextItem[];
  usedChars: number;
  /** The item texts' tokens and their encoding, when the request sent maxTokens or tokenEncoding. */
  usedTokens?: number;
  tokenEncoding?: string;
  /** True when nothing matched the query well. */
  lowConfidence: boolean;
  stats: SelectStats;
}

/** The params of the ctxls/didFocus notification. */
export interface DidFocusParams {
  uri: string;
  position?: Position;
}

/** The server's initializationOptions, also sent as settings.ctxls. */
export interface InitializationOptions {
  embedder: 'hash' | 'onnx';
  modelPath: string;
  onnxRuntimeLibrary: string;
  exclude: string[];
  maxFileBytes: number;
  cacheDir: string;
}

/** The request defaults the server applies when a request leaves them out. */
export interface RequestDefaults {
  limit: number;
  maxChars: number;
  maxCharsPerItem: number;
}
