// Bundles the notebook cards' module (src/widget/index.ts) and its stylesheet into the
// Python package, where anywidget loads them (`_esm`, `_css`): the same card, diff and
// editor modules as the panel, without the JupyterLab application around them.
import { build } from 'esbuild';

// Minified, without source maps, in development too: anywidget sends the module to the
// browser with every widget's state, so its size is paid on every display.
// '@jupyterlab/codemirror' stands for its theme only (src/widget/labtheme.ts), and the theme's
// translator for the identity: the rest would pull the whole application into the module.
const jupyterlabShims = {
  name: 'jupyterlab-shims',
  setup(b) {
    b.onResolve({ filter: /^@jupyterlab\/codemirror$/ }, () => ({
      path: new URL('./src/widget/labtheme.ts', import.meta.url).pathname
    }));
    b.onResolve({ filter: /^@jupyterlab\/translation$/ }, () => ({
      path: 'translation',
      namespace: 'shim'
    }));
    b.onLoad({ filter: /.*/, namespace: 'shim' }, () => ({
      contents:
        'export const nullTranslator = { load: () => ({ __: (s, ...a) => s, _n: (s, p, n) => (n === 1 ? s : p) }) };',
      loader: 'js'
    }));
  }
};

await build({
  entryPoints: ['src/widget/index.ts'],
  bundle: true,
  format: 'esm',
  target: 'es2020',
  minify: true,
  legalComments: 'none',
  outfile: '../jupyter_operator/static/widget.js',
  plugins: [jupyterlabShims],
  logLevel: 'warning'
});

await build({
  entryPoints: ['style/widget.css'],
  bundle: true,
  minify: true,
  outfile: '../jupyter_operator/static/widget.css',
  logLevel: 'warning'
});
