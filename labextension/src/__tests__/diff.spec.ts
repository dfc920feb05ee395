import {
  DEFAULT_LAYOUT,
  foldsInHunk,
  hasSuspiciousAdditions,
  hasSuspiciousLines,
  IDiffLine,
  layoutDiff,
  parseUnifiedDiff,
  visibleText
} from '../diff';

const MODIFY = [
  '--- a/app.py',
  '+++ b/app.py',
  '@@ -1,3 +1,3 @@',
  ' import os',
  '-x = 1',
  '+x = 2',
  ' print(x)',
  '@@ -20,2 +20,3 @@ def f():',
  ' a',
  '+b',
  ' c',
  ''
].join('\n');

describe('parseUnifiedDiff', () => {
  it('reads hunks with old and new line numbers', () => {
    const hunks = parseUnifiedDiff(MODIFY);
    expect(hunks).toHaveLength(2);
    expect(hunks[0].lines).toEqual([
      { kind: 'ctx', text: 'import os', oldNo: 1, newNo: 1 },
      { kind: 'del', text: 'x = 1', oldNo: 2, newNo: null },
      { kind: 'add', text: 'x = 2', oldNo: null, newNo: 2 },
      { kind: 'ctx', text: 'print(x)', oldNo: 3, newNo: 3 }
    ]);
    expect(hunks[1].lines.map(l => [l.kind, l.oldNo, l.newNo])).toEqual([
      ['ctx', 20, 20],
      ['add', null, 21],
      ['ctx', 21, 22]
    ]);
  });

  it('handles a new file, CRLF lines and the no-newline marker', () => {
    const hunks = parseUnifiedDiff('--- /dev/null\r\n+++ b/n.txt\r\n@@ -0,0 +1,2 @@\r\n+one\r\n+two\r\n\\ No newline at end of file\r\n');
    expect(hunks[0].lines).toEqual([
      { kind: 'add', text: 'one', oldNo: null, newNo: 1 },
      { kind: 'add', text: 'two', oldNo: null, newNo: 2, noEol: true }
    ]);
  });

  it('keeps content lines that look like file headers', () => {
    const hunks = parseUnifiedDiff('@@ -1,2 +1,2 @@\n---- old rule\n+++++ new rule\n');
    expect(hunks[0].lines).toEqual([
      { kind: 'del', text: '--- old rule', oldNo: 1, newNo: null },
      { kind: 'add', text: '++++ new rule', oldNo: null, newNo: 1 }
    ]);
  });

  it('starts a new hunk at every @@ line, even after a short hunk', () => {
    const hunks = parseUnifiedDiff('@@ -1,3 +1,3 @@\n-a\n+b\n@@ -9 +9 @@\n-c\n+d\n');
    expect(hunks.map(h => h.lines.map(l => l.text))).toEqual([
      ['a', 'b'],
      ['c', 'd']
    ]);
  });

  it('returns no hunks for text that is not a diff', () => {
    expect(parseUnifiedDiff('hello\n<img src=x onerror=alert(1)>\n')).toEqual([]);
  });
});

function run(kind: IDiffLine['kind'], n: number): IDiffLine[] {
  return Array.from({ length: n }, () => ({ kind, text: '', oldNo: null, newNo: null }));
}

describe('layoutDiff', () => {
  it('marks the unchanged lines between and before hunks', () => {
    const layout = layoutDiff(parseUnifiedDiff(MODIFY));
    expect(layout.lines).toHaveLength(7);
    // Hunk 1 ends at old line 3, hunk 2 starts at old line 20: 16 lines left out.
    expect(layout.gaps).toEqual([{ before: 4, count: 16 }]);
    expect(layout.folds).toEqual([]);
  });

  it('collapses a full-context diff around its changes', () => {
    const old = Array.from({ length: 1000 }, (_, i) => ` line ${i + 1}`);
    old[499] = '-line 500';
    const diff = ['@@ -1,1000 +1,1000 @@', ...old.slice(0, 500), '+LINE 500', ...old.slice(500), ''].join('\n');
    const layout = layoutDiff(parseUnifiedDiff(diff));
    expect(layout.lines).toHaveLength(1001);
    // Lines 0..495 folded (3 kept above the change), 504..1000 folded (3 kept below).
    expect(layout.folds).toEqual([
      { from: 0, to: 495 },
      { from: 504, to: 1000 }
    ]);
  });

  it('cuts a huge change after its head', () => {
    const diff = ['@@ -0,0 +1,10000 @@', ...Array.from({ length: 10000 }, (_, i) => `+l${i}`), ''].join('\n');
    const layout = layoutDiff(parseUnifiedDiff(diff));
    expect(layout.folds).toEqual([{ from: DEFAULT_LAYOUT.keepChange, to: 9999 }]);
  });

  it('offsets folds by the lines of earlier hunks', () => {
    const a = ['@@ -1,1 +1,1 @@', '-a', '+b'];
    const b = ['@@ -50,20 +50,20 @@', '-x', '+y', ...Array.from({ length: 19 }, () => ' z')];
    const layout = layoutDiff(parseUnifiedDiff([...a, ...b, ''].join('\n')));
    expect(layout.folds).toEqual([{ from: 2 + 2 + 3, to: 2 + 2 + 18 }]);
  });
});

describe('foldsInHunk', () => {
  const opts = { ...DEFAULT_LAYOUT, context: 2, minFold: 3 };

  it('never folds short runs', () => {
    const lines = [...run('ctx', 6), ...run('add', 1), ...run('ctx', 6)];
    expect(foldsInHunk(lines, { ...opts, minFold: 5 })).toEqual([]);
    expect(foldsInHunk(lines, { ...opts, minFold: 4 })).toEqual([
      { from: 0, to: 3 },
      { from: 9, to: 12 }
    ]);
  });

  it('keeps context on the side that touches a change', () => {
    const lines = [...run('ctx', 10), ...run('del', 1), ...run('ctx', 10), ...run('add', 1), ...run('ctx', 10)];
    expect(foldsInHunk(lines, opts)).toEqual([
      { from: 0, to: 7 },
      { from: 13, to: 18 },
      { from: 24, to: 31 }
    ]);
  });
});

describe('suspicious characters', () => {
  it('flags bidi and zero-width characters in added lines only', () => {
    const add = (text: string): IDiffLine => ({ kind: 'add', text, oldNo: null, newNo: 1 });
    expect(hasSuspiciousAdditions([add('if (ok) {')])).toBe(false);
    expect(hasSuspiciousAdditions([add('access = "user\u202e \u2066// admin"')])).toBe(true);
    expect(hasSuspiciousAdditions([add('pass\u200bword')])).toBe(true);
    expect(hasSuspiciousAdditions([{ kind: 'del', text: '\u202e', oldNo: 1, newNo: null }])).toBe(false);
  });

  it('flags a lone CR, other controls and tag characters; tab is plain', () => {
    const add = (text: string): IDiffLine => ({ kind: 'add', text, oldNo: null, newNo: 1 });
    expect(hasSuspiciousAdditions([add('ok = 1\rok = 0')])).toBe(true);
    expect(hasSuspiciousAdditions([add('\u001b[2K')])).toBe(true);
    expect(hasSuspiciousAdditions([add('x\u{e0041}')])).toBe(true);
    expect(hasSuspiciousAdditions([add('\tindented')])).toBe(false);
    expect(hasSuspiciousLines([{ kind: 'ctx', text: 'a\rb', oldNo: 1, newNo: 1 }])).toBe(true);
    expect(visibleText('a\rb')).toBe('a<U+000D>b');
  });

  it('keeps a lone CR inside a line (one diff line, never two)', () => {
    const hunks = parseUnifiedDiff('--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n ctx\r+evil = 1\n+new\n');
    expect(hunks[0].lines.map(l => [l.kind, l.text])).toEqual([
      ['ctx', 'ctx\r+evil = 1'],
      ['add', 'new']
    ]);
  });

  it('shows them as code points in paths', () => {
    expect(visibleText('invoice\u202etxt.exe')).toBe('invoice<U+202E>txt.exe');
    expect(visibleText('.g\u200cit/config')).toBe('.g<U+200C>it/config');
    expect(visibleText('plain/path.py')).toBe('plain/path.py');
  });
});
