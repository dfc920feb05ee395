/**
 * Unified diff parsing and the collapsed layout the diff view shows.
 *
 * The server sends the exact unified diff of the bytes that would be written;
 * this module turns it into display lines (with old/new line numbers) and
 * decides which long unchanged or changed runs start collapsed. Pure, so the
 * rules are unit tested without a browser.
 */

/** How a diff line relates to the old and new file. */
export type LineKind = 'add' | 'del' | 'ctx';

/** One line of a hunk, without its `+`/`-`/` ` prefix. */
export interface IDiffLine {
  kind: LineKind;
  text: string;
  oldNo: number | null;
  newNo: number | null;
  /** The file's last line, with no newline after it on this side. */
  noEol?: boolean;
}

/** One `@@` hunk. */
export interface IDiffHunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
  lines: IDiffLine[];
}

/** Unchanged lines the diff leaves out, shown as a marker before a display line. */
export interface IGap {
  before: number;
  count: number;
}

/** An inclusive range of display lines that starts collapsed. */
export interface IFold {
  from: number;
  to: number;
}

/** What the diff view shows. */
export interface IDiffLayout {
  lines: IDiffLine[];
  gaps: IGap[];
  folds: IFold[];
}

/** Collapsing rules. */
export interface ILayoutOptions {
  /** Unchanged lines kept next to each change. */
  context: number;
  /** Never fold fewer lines than this (a fold marker for two lines is noise). */
  minFold: number;
  /** Changed runs longer than this are cut after `keepChange` lines. */
  maxChangeRun: number;
  keepChange: number;
}

export const DEFAULT_LAYOUT: ILayoutOptions = {
  context: 3,
  minFold: 6,
  maxChangeRun: 200,
  keepChange: 100
};

const HUNK_HEADER = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Parse the hunks of a unified diff; file headers and unknown lines are skipped. */
export function parseUnifiedDiff(diff: string): IDiffHunk[] {
  const hunks: IDiffHunk[] = [];
  let hunk: IDiffHunk | null = null;
  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  const raw = diff.split('\n');
  if (raw.length && raw[raw.length - 1] === '') {
    raw.pop();
  }
  // The server ends diff lines with `\n` alone and has already dropped the CR of CRLF file
  // lines, so any other CR is a character of the file and must stay (a lone CR is how a line
  // can hide inside another). Only a diff carried with CRLF terminators (its first header line
  // ends in CR: a path never holds one) has a CR to drop on every line.
  const crlf = raw.length > 0 && raw[0].endsWith('\r');
  for (const rawLine of raw) {
    const line = crlf && rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const header = HUNK_HEADER.exec(line);
    // Content lines start with ' ', '+' or '-', so an '@@' line is always a header
    // (even when a malformed hunk came up short).
    if (header) {
      const oldStart = Number(header[1]);
      const newStart = Number(header[3]);
      const oldCount = header[2] === undefined ? 1 : Number(header[2]);
      const newCount = header[4] === undefined ? 1 : Number(header[4]);
      hunk = { oldStart, oldCount, newStart, newCount, lines: [] };
      hunks.push(hunk);
      oldLeft = oldCount;
      newLeft = newCount;
      // For an empty side, the start number is the line *before* the hunk.
      oldNo = oldCount === 0 ? oldStart + 1 : oldStart;
      newNo = newCount === 0 ? newStart + 1 : newStart;
      continue;
    }
    if (!hunk) {
      continue; // "---", "+++", "diff", "index" headers
    }
    if (line.startsWith('\\')) {
      const last = hunk.lines[hunk.lines.length - 1];
      if (last) {
        last.noEol = true;
      }
      continue;
    }
    if (oldLeft <= 0 && newLeft <= 0) {
      continue; // trailing text after a complete hunk
    }
    const mark = line[0];
    const text = line.slice(1);
    if (mark === '+' && newLeft > 0) {
      hunk.lines.push({ kind: 'add', text, oldNo: null, newNo: newNo++ });
      newLeft--;
    } else if (mark === '-' && oldLeft > 0) {
      hunk.lines.push({ kind: 'del', text, oldNo: oldNo++, newNo: null });
      oldLeft--;
    } else if (mark === ' ' || line === '') {
      hunk.lines.push({ kind: 'ctx', text, oldNo: oldNo++, newNo: newNo++ });
      oldLeft--;
      newLeft--;
    }
  }
  return hunks;
}

/** First old-side line a hunk covers, and the last one. */
function oldRange(h: IDiffHunk): [number, number] {
  if (h.oldCount === 0) {
    return [h.oldStart + 1, h.oldStart];
  }
  return [h.oldStart, h.oldStart + h.oldCount - 1];
}

/** Lay a diff out for display: concatenated hunks, gap markers, initial folds. */
export function layoutDiff(
  hunks: readonly IDiffHunk[],
  options: Partial<ILayoutOptions> = {}
): IDiffLayout {
  const opts = { ...DEFAULT_LAYOUT, ...options };
  const lines: IDiffLine[] = [];
  const gaps: IGap[] = [];
  const folds: IFold[] = [];
  let previousEnd = 0;
  for (const hunk of hunks) {
    const [first, last] = oldRange(hunk);
    const gap = first - previousEnd - 1;
    if (gap > 0) {
      gaps.push({ before: lines.length, count: gap });
    }
    previousEnd = last;
    const offset = lines.length;
    lines.push(...hunk.lines);
    folds.push(...foldsInHunk(hunk.lines, opts).map(f => ({ from: f.from + offset, to: f.to + offset })));
  }
  return { lines, gaps, folds };
}

/** Folds for one hunk's lines (indices relative to the hunk). */
export function foldsInHunk(lines: readonly IDiffLine[], opts: ILayoutOptions): IFold[] {
  const folds: IFold[] = [];
  let start = 0;
  while (start < lines.length) {
    const changed = lines[start].kind !== 'ctx';
    let end = start;
    while (end + 1 < lines.length && (lines[end + 1].kind !== 'ctx') === changed) {
      end++;
    }
    let from: number;
    let to: number;
    if (changed) {
      // A huge change (a new 10,000-line file): show its head, fold the rest.
      const length = end - start + 1;
      from = length > opts.maxChangeRun ? start + opts.keepChange : end + 1;
      to = end;
    } else {
      // Unchanged run: keep `context` lines on each side that touches a change.
      from = start > 0 ? start + opts.context : start;
      to = end < lines.length - 1 ? end - opts.context : end;
    }
    if (to - from + 1 >= opts.minFold) {
      folds.push({ from, to });
    }
    start = end + 1;
  }
  return folds;
}

// Characters that are invisible, reorder text (Trojan Source) or break lines, and every
// control character but tab: the same set as the notebook card (widgets/render.py). A lone CR
// is among them: shown raw, some views start a new line at it.
const SUSPICIOUS_SOURCE =
  '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u00ad\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e' +
  '\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0' +
  '\\u{e0000}-\\u{e007f}]';

/** A fresh global matcher for the characters shown as markers (CodeMirror takes one too). */
export function suspiciousChars(): RegExp {
  return new RegExp(SUSPICIOUS_SOURCE, 'gu');
}

const SUSPICIOUS = new RegExp(SUSPICIOUS_SOURCE, 'u');
const SUSPICIOUS_ALL = suspiciousChars();

/** Whether a text holds an invisible, bidi, line-breaking or control character. */
export function hasSuspicious(text: string): boolean {
  return SUSPICIOUS.test(text);
}

/** Whether any added line holds invisible, bidi or control characters. */
export function hasSuspiciousAdditions(lines: readonly IDiffLine[]): boolean {
  return lines.some(l => l.kind === 'add' && SUSPICIOUS.test(l.text));
}

/** Whether any line of the diff (added, removed or unchanged) holds one. */
export function hasSuspiciousLines(lines: readonly IDiffLine[]): boolean {
  return lines.some(l => SUSPICIOUS.test(l.text));
}

/** The `U+XXXX` name of one character. */
export function codePointName(ch: string): string {
  return `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A string with every invisible, bidi or control character shown as `<U+XXXX>`. */
export function visibleText(text: string): string {
  return text.replace(SUSPICIOUS_ALL, ch => `<${codePointName(ch)}>`);
}
