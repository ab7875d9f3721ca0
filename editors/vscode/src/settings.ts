// The extension's settings (the `ctxls.*` section) and what is built from
// them: the server's initializationOptions, the settings.ctxls object sent
// with workspace/didChangeConfiguration, and the params of a
// workspace/contextSelect request. No `vscode` import: the extension hands
// in a getter for the raw values, the tests hand in a plain object.

import * as os from 'node:os';
import * as path from 'node:path';

import type { ContextSelectParams, InitializationOptions, RequestDefaults } from './protocol';

/** Every setting of the extension, normalized. */
export interface Settings extends InitializationOptions, RequestDefaults {
  /** The ctxls binary: "" (look on PATH), a command name or a path. */
  path: string;
  /**
   * Share one index with agents and the CLI: the server and the MCP server
   * for agents run as clients of ctxls's per-user daemon (`--remote=auto`).
   */
  shareIndex: boolean;
}

/** The values used when a setting is unset or invalid. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  path: '',
  shareIndex: false,
  embedder: 'hash',
  modelPath: '',
  onnxRuntimeLibrary: '',
  exclude: [],
  maxFileBytes: 1048576,
  cacheDir: '',
  limit: 8,
  maxChars: 12000,
  maxCharsPerItem: 1500,
});

/** The largest `limit` the server accepts. */
export const MAX_LIMIT = 100;

/** Settings plus what was wrong with the raw values. */
export interface ReadSettings {
  settings: Settings;
  /** One message per invalid setting, naming it and the value used instead. */
  problems: string[];
}

/**
 * Reads the `ctxls.*` settings through get (key without the "ctxls."
 * prefix; undefined when unset). An invalid value is replaced by its
 * default and reported in problems. A leading "~/" in the path settings is
 * expanded to home.
 */
export function readSettings(get: (key: string) => unknown, home: string = os.homedir()): ReadSettings {
  const problems: string[] = [];
  const str = (key: keyof Settings & string): string => {
    const v = get(key);
    if (v === undefined || v === null) return DEFAULT_SETTINGS[key] as string;
    if (typeof v !== 'string') {
      problems.push(`ctxls.${key} must be a string, got ${describe(v)}; using the default`);
      return DEFAULT_SETTINGS[key] as string;
    }
    return v.trim();
  };
  const int = (key: keyof Settings & string, min: number, max: number): number => {
    const v = get(key);
    const def = DEFAULT_SETTINGS[key] as number;
    if (v === undefined || v === null) return def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `between ${min} and ${max}`;
      problems.push(`ctxls.${key} must be a whole number ${range}, got ${describe(v)}; using ${def}`);
      return def;
    }
    return v;
  };

  const rawEmbedder = str('embedder');
  let embedder: Settings['embedder'] = 'hash';
  if (rawEmbedder === 'hash' || rawEmbedder === 'onnx') {
    embedder = rawEmbedder;
  } else {
    problems.push(`ctxls.embedder must be "hash" or "onnx", got ${describe(rawEmbedder)}; using "hash"`);
  }
  let exclude: string[] = [];
  const rawExclude = get('exclude');
  if (rawExclude !== undefined && rawExclude !== null) {
    if (Array.isArray(rawExclude) && rawExclude.every((g) => typeof g === 'string')) {
      exclude = rawExclude.map((g: string) => g.trim()).filter((g) => g !== '');
    } else {
      problems.push(`ctxls.exclude must be a list of glob strings, got ${describe(rawExclude)}; using []`);
    }
  }
  let shareIndex = DEFAULT_SETTINGS.shareIndex;
  const rawShare = get('shareIndex');
  if (typeof rawShare === 'boolean') {
    shareIndex = rawShare;
  } else if (rawShare !== undefined && rawShare !== null) {
    problems.push(`ctxls.shareIndex must be true or false, got ${describe(rawShare)}; using false`);
  }
  const cacheDir = str('cacheDir');
  const settings: Settings = {
    path: expandHome(str('path'), home),
    shareIndex,
    embedder,
    modelPath: expandHome(str('modelPath'), home),
    onnxRuntimeLibrary: expandHome(str('onnxRuntimeLibrary'), home),
    exclude,
    maxFileBytes: int('maxFileBytes', 1, Number.MAX_SAFE_INTEGER),
    cacheDir: cacheDir === 'off' ? 'off' : expandHome(cacheDir, home),
    limit: int('limit', 1, MAX_LIMIT),
    maxChars: int('maxChars', 1, Number.MAX_SAFE_INTEGER),
    maxCharsPerItem: int('maxCharsPerItem', 1, Number.MAX_SAFE_INTEGER),
  };
  return { settings, problems };
}

/** The arguments of `ctxls serve`: a client of the shared daemon when shareIndex is on. */
export function serveArgs(s: Pick<Settings, 'shareIndex'>): string[] {
  return s.shareIndex ? ['serve', '--remote=auto'] : ['serve'];
}

/** The initializationOptions of the server's initialize request. */
export function initializationOptions(s: Settings): InitializationOptions {
  return {
    embedder: s.embedder,
    modelPath: s.modelPath,
    onnxRuntimeLibrary: s.onnxRuntimeLibrary,
    exclude: [...s.exclude],
    maxFileBytes: s.maxFileBytes,
    cacheDir: s.cacheDir,
  };
}

/**
 * The params of workspace/didChangeConfiguration: every server-side option
 * and the request defaults, under settings.ctxls.
 */
export function configurationParams(s: Settings): { settings: { ctxls: InitializationOptions & RequestDefaults } } {
  return {
    settings: {
      ctxls: {
        ...initializationOptions(s),
        limit: s.limit,
        maxChars: s.maxChars,
        maxCharsPerItem: s.maxCharsPerItem,
      },
    },
  };
}

/**
 * Builds the params of a workspace/contextSelect request: the caller's
 * fields win, the budget fields it leaves out come from the settings, and
 * empty optional fields are dropped. Throws a TypeError naming the field
 * when query is missing or empty or a field has the wrong type.
 */
export function buildSelectParams(input: ContextSelectParams, s: RequestDefaults): ContextSelectParams {
  if (input === null || typeof input !== 'object') {
    throw new TypeError(`selectContext: params must be an object with a query, got ${describe(input)}`);
  }
  if (typeof input.query !== 'string' || input.query.trim() === '') {
    throw new TypeError(`selectContext: params.query must be a non-empty string, got ${describe(input.query)}`);
  }
  const out: ContextSelectParams = { ...input, query: input.query.trim() };
  for (const key of ['history', 'pinned', 'paths', 'excludePaths', 'kinds'] as const) {
    const v = input[key];
    if (v === undefined) continue;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
      throw new TypeError(`selectContext: params.${key} must be a list of strings, got ${describe(v)}`);
    }
    if (v.length === 0) delete out[key];
  }
  for (const key of ['limit', 'maxChars', 'maxCharsPerItem'] as const) {
    const v = input[key];
    if (v === undefined || v === null) {
      out[key] = s[key];
    } else if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new TypeError(`selectContext: params.${key} must be a number, got ${describe(v)}`);
    }
  }
  const maxTokens = input.maxTokens;
  if (maxTokens === undefined || maxTokens === null) {
    delete out.maxTokens;
  } else if (typeof maxTokens !== 'number' || !Number.isFinite(maxTokens)) {
    throw new TypeError(`selectContext: params.maxTokens must be a number, got ${describe(maxTokens)}`);
  }
  if (out.activeUri === undefined || out.activeUri === '') {
    delete out.activeUri;
    delete out.position;
  }
  return out;
}

/** Expands a leading "~" or "~/" to home. */
export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/') || p.startsWith('~\\')) return path.join(home, p.slice(2));
  return p;
}

/** A short description of a value for an error message. */
export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return `an array ${truncate(JSON.stringify(v))}`;
  if (typeof v === 'string') return JSON.stringify(truncate(v));
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${String(v)}`;
}

function truncate(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
