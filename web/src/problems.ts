// The problems list: every error of a failed run with its line:column and message, the same
// errors the editor marks inline. Clicking one (or Enter on it) puts the editor's cursor there.
import type { ScriptError } from './protocol';

export class ProblemsView {
  private readonly count: HTMLElement;
  private readonly list: HTMLOListElement;

  constructor(
    private readonly root: HTMLElement,
    private readonly goTo: (line: number, col: number) => void,
  ) {
    const head = document.createElement('h2');
    head.className = 'problems-head';
    head.id = 'problems-head';
    this.count = document.createElement('span');
    this.count.className = 'problems-count';
    head.append('Problems', this.count);
    this.list = document.createElement('ol');
    this.list.className = 'problems-list';
    this.list.setAttribute('aria-labelledby', head.id);
    root.replaceChildren(head, this.list);
    this.show([]);
  }

  show(errors: ScriptError[]): void {
    this.count.textContent = String(errors.length);
    this.root.hidden = errors.length === 0;
    this.root.dataset.count = String(errors.length);
    this.list.replaceChildren(
      ...errors.map((e) => {
        const item = document.createElement('li');
        const placed = e.line > 0;
        // An error with a place is a button to it; one without (an engine failure) is text.
        const body = placed ? document.createElement('button') : document.createElement('span');
        body.className = 'problem';
        if (body instanceof HTMLButtonElement) {
          body.type = 'button';
          body.title = `Go to line ${e.line}, column ${e.col}`;
          body.addEventListener('click', () => this.goTo(e.line, e.col));
        }
        body.dataset.line = String(e.line);
        body.dataset.col = String(e.col);
        const where = document.createElement('span');
        where.className = 'where';
        where.textContent = placed ? `${e.line}:${e.col}` : '–';
        const message = document.createElement('span');
        message.className = 'message';
        message.textContent = e.message;
        body.append(where, message);
        item.append(body);
        return item;
      }),
    );
  }
}
