// The server's stderr in the output channel, at the right level. ctxls
// logs with Go's log/slog text handler ("time=… level=INFO msg=…"); records
// from INFO up also reach the client as window/logMessage, which
// vscode-languageclient shows at their level, so on stderr those are
// duplicates. Anything else on stderr (a crash, a one-line fatal error)
// is an error.

/** The levels of a LogOutputChannel. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** A line of the server's stderr, classified. */
export interface ServerLogLine {
  level: LogLevel;
  message: string;
  /** Also sent as window/logMessage: showing it again would double it. */
  mirrored: boolean;
}

const slogLine = /^time=\S+ level=(DEBUG|INFO|WARN|ERROR)([+-]\d+)? (.*)$/;

const levels: Record<string, LogLevel> = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' };

/** Classifies one line the server wrote to stderr. */
export function serverLogLine(line: string): ServerLogLine {
  const m = slogLine.exec(line);
  if (m === null) return { level: 'error', message: line, mirrored: false };
  const level = levels[m[1]] ?? 'info';
  return { level, message: m[3], mirrored: level !== 'debug' };
}
