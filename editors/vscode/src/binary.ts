// Finding the ctxls binary: the `ctxls.path` setting first, then PATH.
// When it cannot be found the answer says what to do, so the extension can
// show it as is. No `vscode` import.

import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What findServer looks at; every field has a default from the process. */
export interface FindOptions {
  /** The ctxls.path setting: "" (use PATH), a command name, or a path. */
  configured?: string;
  /** Relative configured paths are resolved against this directory. */
  workspaceFolder?: string;
  /** The process environment (PATH, PATHEXT, GOBIN, GOPATH). */
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
  /** Reports whether a file exists and may be executed. */
  isExecutable?: (file: string) => boolean;
}

/** The binary that was found, or why none was. */
export type FindResult =
  | { found: true; path: string; via: 'setting' | 'PATH' }
  | { found: false; message: string; fix: string };

/** The command that installs ctxls with the Go toolchain. */
export const INSTALL_COMMAND = 'git clone https://github.com/ctxls/ctxls.git && cd ctxls && go install ./cmd/ctxls';

/** Finds the ctxls binary through the ctxls.path setting, then PATH. */
export function findServer(opts: FindOptions = {}): FindResult {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const home = opts.home ?? os.homedir();
  const isExecutable = opts.isExecutable ?? defaultIsExecutable(platform);
  const configured = (opts.configured ?? '').trim();
  const p = platform === 'win32' ? path.win32 : path.posix;

  if (configured !== '') {
    const isPath = configured.includes('/') || (platform === 'win32' && configured.includes('\\'));
    if (isPath) {
      let file = configured;
      if (!p.isAbsolute(file)) {
        if (opts.workspaceFolder === undefined) {
          return {
            found: false,
            message: `ctxls.path is the relative path "${configured}" and no folder is open to resolve it against.`,
            fix: 'Set ctxls.path to an absolute path.',
          };
        }
        file = p.resolve(opts.workspaceFolder, file);
      }
      for (const candidate of withExtensions(file, platform, env)) {
        if (isExecutable(candidate)) return { found: true, path: candidate, via: 'setting' };
      }
      return {
        found: false,
        message: `ctxls.path is "${configured}", but ${file} is not an executable file.`,
        fix: `Build it with \`${INSTALL_COMMAND}\` and point ctxls.path at the binary, or clear ctxls.path to use PATH.`,
      };
    }
    const onPath = searchPath(configured, env, platform, isExecutable);
    if (onPath !== undefined) return { found: true, path: onPath, via: 'setting' };
    return {
      found: false,
      message: `ctxls.path is "${configured}", which is not on PATH.`,
      fix: 'Set ctxls.path to the absolute path of the ctxls binary.',
    };
  }

  const onPath = searchPath('ctxls', env, platform, isExecutable);
  if (onPath !== undefined) return { found: true, path: onPath, via: 'PATH' };

  // Not on PATH. `go install` puts it in GOBIN or GOPATH/bin, which an
  // editor started from a desktop launcher often lacks: say so.
  const exe = platform === 'win32' ? 'ctxls.exe' : 'ctxls';
  const goPaths = (env.GOPATH ?? '').split(p.delimiter).filter((d) => d !== '');
  const goBins = [env.GOBIN, ...goPaths.map((d) => p.join(d, 'bin')), p.join(home, 'go', 'bin')];
  for (const dir of goBins) {
    if (!dir) continue;
    const file = p.join(dir, exe);
    if (isExecutable(file)) {
      return {
        found: false,
        message: `ctxls is not on PATH, but ${file} exists.`,
        fix: `Set ctxls.path to ${file}, or add ${dir} to the PATH the editor starts with.`,
      };
    }
  }
  return {
    found: false,
    message: 'ctxls is not installed: no ctxls binary on PATH.',
    fix: `Install it with \`${INSTALL_COMMAND}\` (then make sure its directory is on PATH), or set ctxls.path to the binary.`,
  };
}

/** The first executable named name in the PATH directories, if any. */
export function searchPath(
  name: string,
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
): string | undefined {
  const p = platform === 'win32' ? path.win32 : path.posix;
  const pathVar = env.PATH ?? env.Path ?? '';
  for (const dir of pathVar.split(p.delimiter)) {
    if (dir === '') continue;
    for (const candidate of withExtensions(p.join(dir, name), platform, env)) {
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** file itself and, on Windows, file with each PATHEXT extension. */
function withExtensions(file: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string[] {
  if (platform !== 'win32') return [file];
  const exts = (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((e) => e !== '');
  return [file, ...exts.map((e) => file + e.toLowerCase())];
}

function defaultIsExecutable(platform: NodeJS.Platform): (file: string) => boolean {
  return (file) => {
    try {
      if (!fs.statSync(file).isFile()) return false;
      if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
}
