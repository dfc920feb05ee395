/**
 * A read-only CodeMirror 6 view of a unified diff.
 *
 * The document holds the code lines only (no `+`/`-` prefixes) so the file's
 * language highlights them; gutters show the old and new line numbers and the
 * sign, line decorations colour additions and removals, and long runs start
 * folded behind a button. Everything is text in CodeMirror: nothing from the
 * file is ever parsed as HTML.
 */
import { Compartment, EditorState, Extension, Range, StateEffect, StateField } from '@codemirror/state';
import {
  Decoration,
  DecorationSet,
  EditorView,
  gutter,
  GutterMarker,
  highlightSpecialChars,
  ViewPlugin,
  ViewUpdate,
  WidgetType
} from '@codemirror/view';
import { syntaxHighlighting } from '@codemirror/language';
import {
  IEditorLanguageRegistry,
  jupyterHighlightStyle,
  jupyterTheme
} from '@jupyterlab/codemirror';

import {
  codePointName,
  IDiffLayout,
  IDiffLine,
  layoutDiff,
  parseUnifiedDiff,
  suspiciousChars
} from './diff';

/** Unfold the fold that starts at a document position. */
const unfold = StateEffect.define<number>();

function plural(n: number, word: string): string {
  return `${n.toLocaleString()} ${word}${n === 1 ? '' : 's'}`;
}

class FoldWidget extends WidgetType {
  constructor(
    readonly count: number,
    readonly changed: boolean
  ) {
    super();
  }

  eq(other: FoldWidget): boolean {
    return other.count === this.count && other.changed === this.changed;
  }

  toDOM(view: EditorView): HTMLElement {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'jp-Operator-fold';
    const label = this.changed
      ? `Show ${plural(this.count, 'more changed line')}`
      : `Show ${plural(this.count, 'unchanged line')}`;
    button.textContent = `⋯ ${label}`;
    button.setAttribute('aria-label', label);
    button.addEventListener('click', event => {
      event.preventDefault();
      view.dispatch({ effects: unfold.of(view.posAtDOM(button)) });
    });
    return button;
  }

  ignoreEvent(): boolean {
    return true;
  }
}

class GapWidget extends WidgetType {
  constructor(readonly count: number) {
    super();
  }

  eq(other: GapWidget): boolean {
    return other.count === this.count;
  }

  toDOM(): HTMLElement {
    const div = document.createElement('div');
    div.className = 'jp-Operator-gap';
    div.textContent = `⋯ ${plural(this.count, 'unchanged line')} not shown`;
    return div;
  }
}

class NoEolWidget extends WidgetType {
  eq(): boolean {
    return true;
  }

  toDOM(): HTMLElement {
    const span = document.createElement('span');
    span.className = 'jp-Operator-noeol';
    span.textContent = ' (no newline at end of file)';
    return span;
  }
}

class TextMarker extends GutterMarker {
  constructor(
    readonly text: string,
    readonly cls: string
  ) {
    super();
  }

  eq(other: TextMarker): boolean {
    return other.text === this.text && other.cls === this.cls;
  }

  toDOM(): Node {
    const span = document.createElement('span');
    span.className = this.cls;
    span.textContent = this.text;
    return span;
  }
}

/** Draw an invisible or control character as a visible `<U+XXXX>` mark. */
function renderSpecial(code: number): HTMLElement {
  const span = document.createElement('span');
  const name = codePointName(String.fromCodePoint(code));
  span.className = 'cm-specialChar jp-Operator-invisible';
  span.title = `invisible or control character ${name}`;
  span.textContent = `<${name}>`;
  return span;
}

/**
 * Show every control, bidi and zero-width character as a mark. CodeMirror's own default
 * misses some (and would still split lines at a lone CR without the line separator below).
 */
const visibleSpecials = highlightSpecialChars({
  specialChars: suspiciousChars(),
  render: renderSpecial
});

const SIGNS: Record<IDiffLine['kind'], string> = { add: '+', del: '-', ctx: ' ' };

/** Gutters for old number, new number and sign, read from the layout by line. */
function diffGutters(lines: readonly IDiffLine[]): Extension {
  const info = (view: EditorView, from: number): IDiffLine | undefined =>
    lines[view.state.doc.lineAt(from).number - 1];
  return [
    gutter({
      class: 'jp-Operator-gutter-old',
      lineMarker: (view, line) => {
        const l = info(view, line.from);
        return l && l.oldNo !== null ? new TextMarker(String(l.oldNo), 'jp-Operator-lineno') : null;
      }
    }),
    gutter({
      class: 'jp-Operator-gutter-new',
      lineMarker: (view, line) => {
        const l = info(view, line.from);
        return l && l.newNo !== null ? new TextMarker(String(l.newNo), 'jp-Operator-lineno') : null;
      }
    }),
    gutter({
      class: 'jp-Operator-gutter-sign',
      lineMarker: (view, line) => {
        const l = info(view, line.from);
        return l ? new TextMarker(SIGNS[l.kind], `jp-Operator-sign-${l.kind}`) : null;
      }
    })
  ];
}

const ADDED_LINE = Decoration.line({ class: 'jp-Operator-line-add' });
const REMOVED_LINE = Decoration.line({ class: 'jp-Operator-line-del' });

/**
 * Line colours for the lines in view only: a 10,000-line diff costs what its visible part
 * does (CodeMirror draws only those lines; colouring them all up front did not).
 */
function lineColours(layout: IDiffLayout): Extension {
  const build = (view: EditorView): DecorationSet => {
    const ranges: Range<Decoration>[] = [];
    const doc = view.state.doc;
    for (const { from, to } of view.visibleRanges) {
      for (let n = doc.lineAt(from).number; n <= doc.lineAt(to).number; n++) {
        const kind = layout.lines[n - 1]?.kind;
        if (kind === 'add' || kind === 'del') {
          ranges.push((kind === 'add' ? ADDED_LINE : REMOVED_LINE).range(doc.line(n).from));
        }
      }
    }
    return Decoration.set(ranges);
  };
  return ViewPlugin.define(
    view => ({
      decorations: build(view),
      update(update: ViewUpdate) {
        if (update.docChanged || update.viewportChanged) {
          this.decorations = build(update.view);
        }
      }
    }),
    { decorations: plugin => plugin.decorations }
  );
}

/** Static decorations: gap markers and no-newline notes (few, and gaps are blocks). */
function staticDecorations(state: EditorState, layout: IDiffLayout): DecorationSet {
  const ranges: Range<Decoration>[] = [];
  layout.lines.forEach((l, i) => {
    if (l.noEol) {
      const line = state.doc.line(i + 1);
      ranges.push(Decoration.widget({ widget: new NoEolWidget(), side: 1 }).range(line.to));
    }
  });
  for (const gap of layout.gaps) {
    const line = state.doc.line(Math.min(gap.before + 1, state.doc.lines));
    ranges.push(
      Decoration.widget({ widget: new GapWidget(gap.count), block: true, side: -1 }).range(
        line.from
      )
    );
  }
  return Decoration.set(ranges, true);
}

/** The folds, as block replacements that a click removes. */
function foldField(layout: IDiffLayout): StateField<DecorationSet> {
  return StateField.define<DecorationSet>({
    create(state) {
      const ranges = layout.folds.map(f => {
        const from = state.doc.line(f.from + 1).from;
        const to = state.doc.line(f.to + 1).to;
        const changed = layout.lines[f.from].kind !== 'ctx';
        return Decoration.replace({
          widget: new FoldWidget(f.to - f.from + 1, changed),
          block: true
        }).range(from, to);
      });
      return Decoration.set(ranges, true);
    },
    update(folds, tr) {
      for (const effect of tr.effects) {
        if (effect.is(unfold)) {
          folds = folds.update({ filter: from => from !== effect.value });
        }
      }
      return folds;
    },
    provide: field => EditorView.decorations.from(field)
  });
}

/** Options of {@link DiffView}. */
export interface IDiffViewOptions {
  /** The unified diff text from the server. */
  diff: string;
  /** The file's workspace-relative path, to pick a highlighting language. */
  path: string | null;
  /** JupyterLab's language registry, when available. */
  languages?: IEditorLanguageRegistry | null;
}

/** A read-only diff view mounted in a host element. */
export class DiffView {
  readonly view: EditorView;
  readonly layout: IDiffLayout;
  /** Whether every diff line is exactly one editor line (always, unless a bug says otherwise). */
  readonly consistent: boolean;
  private _language = new Compartment();
  private _disposed = false;

  constructor(host: HTMLElement, options: IDiffViewOptions) {
    this.layout = layoutDiff(parseUnifiedDiff(options.diff));
    const doc = this.layout.lines.map(l => l.text).join('\n');
    // One display line per diff line, always: CodeMirror otherwise also breaks lines at a lone
    // CR (and CRLF), which would shift every sign and colour after it by one, so an added
    // line could be drawn as unchanged context.
    const decorations = StateField.define<DecorationSet>({
      create: state => staticDecorations(state, this.layout),
      update: value => value,
      provide: field => EditorView.decorations.from(field)
    });
    this.view = new EditorView({
      parent: host,
      state: EditorState.create({
        doc,
        extensions: [
          EditorState.lineSeparator.of('\n'),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.contentAttributes.of({ 'aria-label': 'Proposed change (diff)' }),
          visibleSpecials,
          jupyterTheme,
          syntaxHighlighting(jupyterHighlightStyle),
          diffGutters(this.layout.lines),
          lineColours(this.layout),
          decorations,
          foldField(this.layout),
          this._language.of([])
        ]
      })
    });
    // Never show signs against the wrong lines: the card falls back to plain text then.
    this.consistent = this.view.state.doc.lines === Math.max(1, this.layout.lines.length);
    void this._loadLanguage(options);
  }

  /** Free the editor. */
  dispose(): void {
    this._disposed = true;
    this.view.destroy();
  }

  private async _loadLanguage(options: IDiffViewOptions): Promise<void> {
    const registry = options.languages;
    if (!registry || !options.path) {
      return;
    }
    try {
      const found = registry.findByFileName(options.path);
      const language = found ? await registry.getLanguage(found) : null;
      if (language?.support && !this._disposed) {
        this.view.dispatch({ effects: this._language.reconfigure(language.support) });
      }
    } catch (reason) {
      console.warn('jupyter-operator: no syntax highlighting for this file', reason);
    }
  }
}
