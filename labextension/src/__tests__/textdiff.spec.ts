import { parseUnifiedDiff } from '../diff';
import { decisionBody } from '../request';
import { diffCounts, diffLines, keepLineEndings, splitLines, unifiedDiff } from '../textdiff';

/** Rebuild the new text from the old one and a unified diff (what a patch tool does). */
function applyDiff(oldText: string, diff: string): string {
  const old = splitLines(oldText);
  const out: string[] = [];
  let at = 0; // next old line to copy
  const emit = (text: string, eol: boolean): void => {
    out.push(text + (eol ? '\n' : ''));
  };
  for (const hunk of parseUnifiedDiff(diff)) {
    const start = hunk.oldCount === 0 ? hunk.oldStart : hunk.oldStart - 1;
    while (at < start) {
      emit(old[at].text, old[at].eol);
      at++;
    }
    for (const line of hunk.lines) {
      if (line.kind !== 'add') {
        at++;
      }
      if (line.kind !== 'del') {
        emit(line.text, !line.noEol);
      }
    }
  }
  while (at < old.length) {
    emit(old[at].text, old[at].eol);
    at++;
  }
  return out.join('');
}

/** A small deterministic random generator (tests must not depend on luck). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('unifiedDiff', () => {
  it('writes the server form: headers, hunks with context, counts', () => {
    const diff = unifiedDiff('x = 2\ny = 3\n', 'x = 2\ny = 4\nz = 5\n', 'a.py');
    expect(diff).toBe(
      '--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,3 @@\n x = 2\n-y = 3\n+y = 4\n+z = 5\n'
    );
    expect(diffCounts(diff)).toEqual({ added: 2, removed: 1 });
  });

  it('names a new file /dev/null and marks a last line without newline', () => {
    expect(unifiedDiff(null, 'a\nb', 'd/n.txt')).toBe(
      '--- /dev/null\n+++ b/d/n.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n'
    );
    expect(unifiedDiff('a\n', 'a\n', 'x')).toBe('');
  });

  it('keeps far apart changes in separate hunks', () => {
    const old = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const next = old.replace('line 2\n', 'LINE 2\n').replace('line 28\n', 'LINE 28\n');
    const diff = unifiedDiff(old, next, 'f.txt');
    expect(diff.match(/^@@/gm)).toHaveLength(2);
    expect(diff).toContain('@@ -1,5 +1,5 @@');
    expect(diff).toContain('@@ -25,6 +25,6 @@');
  });

  it('always rebuilds the new text from the old one (random edits)', () => {
    const random = rng(7);
    const words = ['a', 'b', 'c', 'def', '', 'x y'];
    for (let round = 0; round < 300; round++) {
      const make = (n: number): string =>
        Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join('\n') +
        (random() < 0.5 ? '\n' : '');
      const old = make(Math.floor(random() * 25));
      const next = make(Math.floor(random() * 25));
      const diff = unifiedDiff(old, next, 'r.txt');
      expect(applyDiff(old, diff)).toBe(next);
    }
  });

  it('stays correct past the search limit (many changed lines)', () => {
    const old = Array.from({ length: 1500 }, (_, i) => `l${i}`).join('\n') + '\n';
    const next = Array.from({ length: 1500 }, (_, i) => (i % 2 ? `l${i}` : `L${i}`)).join('\n');
    const diff = unifiedDiff(old, next, 'big.txt');
    expect(applyDiff(old, diff)).toBe(next);
  });

  it('finds a minimal script', () => {
    const ops = diffLines(splitLines('a\nb\nc\nd\n'), splitLines('a\nc\nd\ne\n'));
    expect(ops).toEqual(['equal', 'delete', 'equal', 'equal', 'insert']);
  });
});

describe('keepLineEndings', () => {
  it('puts CRLF back when the proposal used it throughout', () => {
    expect(keepLineEndings('a\r\nb\r\n', 'a\nB\nc\n')).toBe('a\r\nB\r\nc\r\n');
    expect(keepLineEndings('a\nb\n', 'a\nB\n')).toBe('a\nB\n');
    expect(keepLineEndings('a\r\nb\n', 'a\nB\n')).toBe('a\nB\n');
    expect(keepLineEndings('a\r\nb\r\n', 'a\r\nB\n')).toBe('a\r\nB\n');
  });
});

describe('decisionBody with an edit', () => {
  it('sends the content exactly, and only with approve', () => {
    expect(decisionBody('approve', 'w1', null, '  x\n')).toEqual({
      id: 'w1',
      decision: 'approve',
      content: '  x\n'
    });
    expect(decisionBody('approve', 'w1', null, '')).toEqual({
      id: 'w1',
      decision: 'approve',
      content: ''
    });
    expect(decisionBody('reject', 'w1', 'no', 'x')).toEqual({
      id: 'w1',
      decision: 'reject',
      reason: 'no'
    });
    expect(decisionBody('approve', 'w1')).toEqual({ id: 'w1', decision: 'approve' });
  });
});
