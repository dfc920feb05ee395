/**
 * What the cards take from `@jupyterlab/codemirror` when they are bundled as the
 * notebook widget's module (esbuild aliases the package to this file): JupyterLab's
 * own CodeMirror theme and highlight style, which read the page's `--jp-*`
 * variables, so a notebook card and a panel card look alike in every theme. The
 * rest of `@jupyterlab/codemirror` (its language registry, its extensions) would
 * pull the whole application into the module, so it is left out; types are erased.
 */
export { jupyterHighlightStyle, jupyterTheme } from '@jupyterlab/codemirror/lib/theme.js';
export type { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
