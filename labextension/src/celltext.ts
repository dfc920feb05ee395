/**
 * Find the reply text in a notebook cell: its source, or the text of its outputs
 * (a model's answer printed by code or displayed as Markdown).
 *
 * Works on nbformat JSON so it is independent of the cell widgets.
 */

/** The nbformat fields this module reads from an output. */
export interface IOutputLike {
  output_type: string;
  text?: string | string[];
  data?: Record<string, unknown>;
}

/** The nbformat fields this module reads from a cell. */
export interface ICellLike {
  source: string | string[];
  outputs?: readonly IOutputLike[];
}

/** Where the command text was found. */
export interface ICellCommandText {
  text: string;
  origin: 'source' | 'outputs';
}

const MARKER = /^[ \t]*OPERATOR_CMD[ \t]*\r?$/m;
// CSI and OSC escape sequences (coloured stream output), which would break marker lines.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Join nbformat's multiline strings (a string or a list of lines). */
export function joinMultiline(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) {
    return value.filter(v => typeof v === 'string').join('');
  }
  return '';
}

/** Whether a text holds at least one `OPERATOR_CMD` marker line. */
export function hasCommandMarker(text: string): boolean {
  return MARKER.test(text);
}

/**
 * Decode a Python `repr()` of a str (`'a\nb'`), as a bare expression's
 * `text/plain` shows it; returns null when the text is not a plain str literal.
 */
export function decodePythonStringRepr(text: string): string | null {
  const trimmed = text.trim();
  const quote = trimmed[0];
  if (trimmed.length < 2 || (quote !== "'" && quote !== '"') || !trimmed.endsWith(quote)) {
    return null;
  }
  const body = trimmed.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === quote) {
      return null; // an unescaped quote: this was not one str literal
    }
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const next = body[++i];
    switch (next) {
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case '\\':
      case "'":
      case '"':
        out += next;
        break;
      case 'x': {
        const code = parseInt(body.slice(i + 1, i + 3), 16);
        if (Number.isNaN(code)) {
          return null;
        }
        out += String.fromCharCode(code);
        i += 2;
        break;
      }
      case 'u': {
        const code = parseInt(body.slice(i + 1, i + 5), 16);
        if (Number.isNaN(code)) {
          return null;
        }
        out += String.fromCharCode(code);
        i += 4;
        break;
      }
      default:
        return null;
    }
  }
  return out;
}

/** The text of one output: stream text, or Markdown / plain text of rich outputs. */
export function outputText(output: IOutputLike): string {
  if (output.output_type === 'stream') {
    return joinMultiline(output.text).replace(ANSI, '');
  }
  if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
    const data = output.data ?? {};
    const markdown = joinMultiline(data['text/markdown']);
    if (markdown) {
      return markdown;
    }
    const plain = joinMultiline(data['text/plain']).replace(ANSI, '');
    if (!hasCommandMarker(plain)) {
      // A str shown as the cell's value is its repr: one line with escaped newlines.
      const decoded = decodePythonStringRepr(plain);
      if (decoded !== null && hasCommandMarker(decoded)) {
        return decoded;
      }
    }
    return plain;
  }
  return ''; // errors and unknown output types never hold a reply
}

/**
 * All output texts of a cell, in order. Consecutive stream chunks are joined
 * as they are (a long print arrives in pieces); other outputs end with a newline
 * so a marker never shares a line with the next output.
 */
export function outputsText(outputs: readonly IOutputLike[]): string {
  let text = '';
  let previousStream = false;
  for (const output of outputs) {
    const part = outputText(output);
    if (!part) {
      continue;
    }
    const stream = output.output_type === 'stream';
    if (text && !text.endsWith('\n') && !(stream && previousStream)) {
      text += '\n';
    }
    text += part;
    previousStream = stream;
  }
  return text && !text.endsWith('\n') ? `${text}\n` : text;
}

/**
 * The text to scan for a cell: its source when that holds commands, else its
 * outputs when they do; null when neither does.
 */
export function cellCommandText(cell: ICellLike): ICellCommandText | null {
  const source = joinMultiline(cell.source);
  if (hasCommandMarker(source)) {
    return { text: source, origin: 'source' };
  }
  const outputs = outputsText(cell.outputs ?? []);
  if (hasCommandMarker(outputs)) {
    return { text: outputs, origin: 'outputs' };
  }
  return null;
}
