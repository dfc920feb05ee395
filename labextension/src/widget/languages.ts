/**
 * The languages a notebook card colours when it runs outside JupyterLab's shell
 * (the anywidget module has no `IEditorLanguageRegistry` to ask): the few that
 * model replies touch most, from the same `@codemirror/lang-*` packages
 * JupyterLab uses. Other files are shown as plain text: each grammar adds to the
 * module, which is sent with every widget.
 */
import { LanguageSupport } from '@codemirror/language';
import { css } from '@codemirror/lang-css';
import { html } from '@codemirror/lang-html';
import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { markdown } from '@codemirror/lang-markdown';
import { python } from '@codemirror/lang-python';
import type { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

interface ILanguageSpec {
  name: string;
  load: () => LanguageSupport;
}

const BY_EXTENSION: Record<string, ILanguageSpec> = {};
function add(name: string, load: () => LanguageSupport, extensions: string[]): void {
  for (const ext of extensions) {
    BY_EXTENSION[ext] = { name, load };
  }
}
add('python', python, ['py', 'pyi', 'pyw', 'ipy']);
add('javascript', () => javascript({ typescript: false, jsx: true }), ['js', 'mjs', 'cjs', 'jsx']);
add('typescript', () => javascript({ typescript: true, jsx: true }), ['ts', 'tsx', 'mts', 'cts']);
add('json', json, ['json', 'ipynb', 'geojson']);
add('markdown', markdown, ['md', 'markdown']);
add('css', css, ['css']);
add('html', html, ['html', 'htm']);

/** The extension of a path's last part, lower case ('' when it has none). */
export function extensionOf(path: string): string {
  const name = path.split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * The part of `IEditorLanguageRegistry` the cards use (`findByFileName`, then
 * `getLanguage(...).support`), over the table above.
 */
export function languageRegistry(): IEditorLanguageRegistry {
  const cache = new Map<string, LanguageSupport>();
  const registry = {
    findByFileName(path: string): ILanguageSpec | null {
      return BY_EXTENSION[extensionOf(path)] ?? null;
    },
    async getLanguage(spec: ILanguageSpec | null): Promise<{ support: LanguageSupport } | null> {
      if (!spec) {
        return null;
      }
      let support = cache.get(spec.name);
      if (!support) {
        support = spec.load();
        cache.set(spec.name, support);
      }
      return { support };
    }
  };
  return registry as unknown as IEditorLanguageRegistry;
}
