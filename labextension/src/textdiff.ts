/**
 * Line diffs computed in the browser, for the live diff while a person edits a
 * proposal: the same unified diff form the server sends (`--- a/path`,
 * `+++ b/path`, `@@` hunks with 3 lines of context, `\ No newline at end of
 * file`), so the one diff view shows both. Pure: unit tested without a browser.
 */

/** One line of a text: its content (CR of a CRLF end dropped) and whether a newline ends it. */
interface ILine {
  text: string;
  eol: boolean;
}

/** Split text into lines; the empty string after a final newline is not a line. */
export function splitLines(text: string): ILine[] {
  if (text === '') {
    return [];
  }
  const parts = text.split('\n');
  const last = parts.pop() as string;
  const lines = parts.map(p => ({ text: p.endsWith('\r') ? p.slice(0, -1) : p, eol: true }));
  if (last !== '') {
    lines.push({ text: last, eol: false });
  }
  return lines;
}

type Op = 'equal' | 'delete' | 'insert';

/**
 * Past this many differing lines the middle is shown as removed then added (still a correct
 * diff, only not the shortest): the search costs O((N+M)·D) time and O(D²) memory.
 */
const MAX_EDIT_DISTANCE = 1000;

function same(a: ILine, b: ILine): boolean {
  return a.text === b.text && a.eol === b.eol;
}

/**
 * The edit script from `a` to `b` (Myers' O((N+M)D) algorithm after trimming the common
 * head and tail), as one operation per line.
 */
export function diffLines(a: ILine[], b: ILine[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && same(a[head], b[head])) {
    head++;
  }
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    same(a[a.length - 1 - tail], b[b.length - 1 - tail])
  ) {
    tail++;
  }
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle = myers(x, y) ?? [
    ...x.map((): Op => 'delete'),
    ...y.map((): Op => 'insert')
  ];
  return [
    ...new Array<Op>(head).fill('equal'),
    ...middle,
    ...new Array<Op>(tail).fill('equal')
  ];
}

function myers(a: ILine[], b: ILine[]): Op[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    // Only diagonals -d..d can be reached in d steps: keep that band for the way back.
    trace.push(v.slice(offset - d, offset + d + 1));
    const next = v;
    for (let k = -d; k <= d; k += 2) {
      let xPos =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])
          ? v[offset + k + 1]
          : v[offset + k - 1] + 1;
      let yPos = xPos - k;
      while (xPos < n && yPos < m && same(a[xPos], b[yPos])) {
        xPos++;
        yPos++;
      }
      next[offset + k] = xPos;
      if (xPos >= n && yPos >= m) {
        return backtrack(trace, n, m, d);
      }
    }
    v = next;
  }
  return null;
}

function backtrack(trace: Int32Array[], n: number, m: number, dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    // trace[d] holds diagonals -d..d of the state before round d (index k + d).
    const v = trace[d];
    const at = (diagonal: number): number => v[diagonal + d];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push('equal');
      x--;
      y--;
    }
    ops.push(down ? 'insert' : 'delete');
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push('equal');
    x--;
    y--;
  }
  return ops.reverse();
}

function range(start: number, count: number): string {
  // An empty side names the line before the hunk, as diff(1) and the server do.
  const first = count === 0 ? start : start + 1;
  return count === 1 ? `${first}` : `${first},${count}`;
}

/**
 * A unified diff from `oldText` to `newText` (null: the file does not exist), with the
 * server's headers; "" when they are the same.
 */
export function unifiedDiff(
  oldText: string | null,
  newText: string | null,
  path: string,
  context = 3
): string {
  if (oldText === newText) {
    return '';
  }
  const name = path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
  const a = splitLines(oldText ?? '');
  const b = splitLines(newText ?? '');
  const ops = diffLines(a, b);
  const out = [
    `--- ${oldText === null ? '/dev/null' : `a/${name}`}`,
    `+++ ${newText === null ? '/dev/null' : `b/${name}`}`
  ];
  // Positions of each op in a and b.
  const rows: { op: Op; i: number; j: number }[] = [];
  let i = 0;
  let j = 0;
  for (const op of ops) {
    rows.push({ op, i, j });
    if (op !== 'insert') {
      i++;
    }
    if (op !== 'delete') {
      j++;
    }
  }
  let k = 0;
  while (k < rows.length) {
    if (rows[k].op === 'equal') {
      k++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last
    // change that is no more than 2 * context equal lines away.
    const start = Math.max(0, k - context);
    let end = k;
    let equalRun = 0;
    for (let r = k; r < rows.length; r++) {
      if (rows[r].op === 'equal') {
        equalRun++;
        if (equalRun > 2 * context) {
          break;
        }
      } else {
        equalRun = 0;
        end = r;
      }
    }
    const stop = Math.min(rows.length, end + context + 1);
    const slice = rows.slice(start, stop);
    const oldCount = slice.filter(r => r.op !== 'insert').length;
    const newCount = slice.filter(r => r.op !== 'delete').length;
    out.push(`@@ -${range(rows[start].i, oldCount)} +${range(rows[start].j, newCount)} @@`);
    for (const r of slice) {
      const line = r.op === 'insert' ? b[r.j] : a[r.i];
      const sign = r.op === 'equal' ? ' ' : r.op === 'insert' ? '+' : '-';
      out.push(sign + line.text);
      if (!line.eol) {
        out.push('\\ No newline at end of file');
      }
    }
    k = stop;
  }
  return out.join('\n') + '\n';
}

/** Lines added and removed in a unified diff (headers excluded). */
export function diffCounts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) {
      inHunk = true;
    } else if (inHunk && line.startsWith('+')) {
      added++;
    } else if (inHunk && line.startsWith('-')) {
      removed++;
    }
  }
  return { added, removed };
}

/**
 * `edited` with CRLF line ends when the proposal used CRLF throughout: browser editors hand
 * back `\n` whatever they were given, and one edited line must not rewrite every line.
 * The server's `engine/edits.py` keep_line_endings applies the same rule.
 */
export function keepLineEndings(proposed: string, edited: string): string {
  if (edited.includes('\r') || !proposed.includes('\r\n')) {
    return edited;
  }
  const lf = proposed.split('\n').length - 1;
  const crlf = proposed.split('\r\n').length - 1;
  return lf === crlf ? edited.replace(/\n/g, '\r\n') : edited;
}
