/**
 * A question the model asked the person, at the end of an Ask run: the question,
 * a box for the answer and Answer, which continues the same run on the server
 * (`POST agent/runs/{run}/answer`).
 */
import { button, el } from './dom';

/** The question's text from the run's stop message ("The model asks: ..."). */
export function questionText(message: string): string {
  const prefix = 'The model asks: ';
  return message.startsWith(prefix) ? message.slice(prefix.length) : message;
}

/** The question box; `send(text)` resolves once the server took the answer. */
export class QuestionBox {
  readonly node = el('div', 'jp-Operator-question');
  private _answer: HTMLTextAreaElement;
  private _send: HTMLButtonElement;
  private _note: HTMLElement;

  constructor(
    question: string,
    private _onAnswer: (text: string) => Promise<void>
  ) {
    const asked = el('p', 'jp-Operator-question-text');
    asked.append(el('strong', undefined, 'The model asks: '), document.createTextNode(question));
    this._answer = el('textarea', 'jp-Operator-question-answer');
    this._answer.rows = 2;
    this._answer.placeholder = "Your answer (the model's next message)";
    this._answer.setAttribute('aria-label', 'Your answer to the model');
    this._answer.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.send();
      }
    });
    this._answer.addEventListener('input', () => (this._note.textContent = ''));
    this._send = button('Answer', 'jp-mod-accept jp-Operator-question-send', () => void this.send(), 'Answer and go on (Ctrl+Enter)');
    this._note = el('span', 'jp-Operator-question-note');
    const row = el('div', 'jp-Operator-row');
    row.append(this._send, this._note);
    this.node.append(asked, this._answer, row);
  }

  /** Send the answer in the box; the box becomes "You answered: ..." once it was taken. */
  async send(): Promise<void> {
    const text = this._answer.value.trim();
    if (!text) {
      this._note.textContent = 'Write an answer first.';
      return;
    }
    this._send.disabled = this._answer.disabled = true;
    try {
      await this._onAnswer(text);
    } catch (reason) {
      this._send.disabled = this._answer.disabled = false;
      throw reason;
    }
    const said = el('p', 'jp-Operator-question-answered');
    said.append(el('strong', undefined, 'You answered: '), document.createTextNode(text));
    this._answer.replaceWith(said);
    this._send.parentElement?.remove();
  }
}
