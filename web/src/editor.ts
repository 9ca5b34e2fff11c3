// The script editor: CodeMirror 6 with Python highlighting. A run's errors appear inline at their
// line and column as lint diagnostics (underline, gutter marker, tooltip).
import { indentWithTab } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import type { ScriptError } from './protocol';

// Token colours are CSS variables (style.css), so one style serves the light and the dark theme.
const highlight = HighlightStyle.define([
  { tag: [t.keyword, t.controlKeyword, t.definitionKeyword, t.moduleKeyword, t.operatorKeyword], color: 'var(--tok-keyword)' },
  { tag: [t.string, t.special(t.string)], color: 'var(--tok-string)' },
  { tag: [t.number, t.bool, t.null], color: 'var(--tok-number)' },
  { tag: [t.comment, t.lineComment], color: 'var(--tok-comment)', fontStyle: 'italic' },
  { tag: [t.function(t.definition(t.variableName)), t.function(t.variableName)], color: 'var(--tok-function)' },
  { tag: [t.definition(t.className), t.className], color: 'var(--tok-class)' },
  { tag: [t.meta], color: 'var(--tok-meta)' },
  { tag: [t.propertyName], color: 'var(--tok-property)' },
  { tag: [t.self], color: 'var(--tok-keyword)', fontStyle: 'italic' },
]);

export class ScriptEditor {
  readonly view: EditorView;
  /** Whether typing may change the text (an embedded example can be read-only). */
  private readonly editable = new Compartment();

  /** `root`: the document or shadow root the editor lives in, where CodeMirror mounts its styles. */
  constructor(parent: HTMLElement, onRun: () => void, options: { readOnly?: boolean; root?: Document | ShadowRoot } = {}) {
    const runKey = { key: 'Mod-Enter', preventDefault: true, run: () => (onRun(), true) };
    this.view = new EditorView({
      parent,
      root: options.root,
      state: EditorState.create({
        doc: '',
        extensions: [
          basicSetup,
          python(),
          syntaxHighlighting(highlight),
          lintGutter(),
          // Tab indents; Escape then Tab leaves the editor (CodeMirror's documented escape hatch).
          keymap.of([indentWithTab]),
          Prec.highest(keymap.of([runKey])),
          EditorView.contentAttributes.of({ 'aria-label': 'Python script' }),
          this.editable.of(editability(options.readOnly ?? false)),
        ],
      }),
    });
  }

  /** Read-only: the user can select, copy and run the text, not change it. */
  set readOnly(readOnly: boolean) {
    this.view.dispatch({ effects: this.editable.reconfigure(editability(readOnly)) });
  }

  get code(): string {
    return this.view.state.doc.toString();
  }

  set code(text: string) {
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
    this.showErrors([]);
  }

  /** Marks each error that has a place in the script; the rest are only in the output. */
  showErrors(errors: ScriptError[]): void {
    const diagnostics: Diagnostic[] = [];
    for (const e of errors) {
      const at = this.offsetOf(e.line, e.col);
      if (at === null) continue;
      const line = this.view.state.doc.lineAt(at);
      // One character wide, or the whole line when the column is at its end (a missing token).
      const to = at < line.to ? at + 1 : line.to;
      diagnostics.push({ from: to === at ? line.from : at, to, severity: 'error', message: e.message });
    }
    this.view.dispatch(setDiagnostics(this.view.state, diagnostics));
  }

  /** Puts the cursor at a 1-based line and column (clamped to the line), scrolled into view. */
  goTo(line: number, col: number): void {
    const at = this.offsetOf(line, col);
    if (at === null) return;
    this.view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
    this.view.focus();
  }

  /** The document offset of a 1-based line and column, or null when the line is not there. */
  private offsetOf(lineNumber: number, col: number): number | null {
    const doc = this.view.state.doc;
    if (lineNumber < 1 || lineNumber > doc.lines) return null;
    const line = doc.line(lineNumber);
    return Math.min(line.from + Math.max(col - 1, 0), line.to);
  }
}

function editability(readOnly: boolean) {
  return [EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)];
}
