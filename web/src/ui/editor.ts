// A plain-textarea editor with tabs (one per scenario file), a line-number
// gutter and inline errors: an InputError naming "cgroup.conf:3" switches to
// that tab, marks line 3 in the gutter, shades it behind the text and shows
// the message under the editor (a fio option fio does not know, such as
// iodeph=32, is such an error). Warnings that name a place ("jobs.fio:8:
// exitall_on_error: not modelled by iosim, ignored ...") mark their line in
// amber and are listed under the editor while there is no error. No editor dependency: a <textarea> keeps
// native keyboard behaviour, undo and accessibility.

export interface EditorFile {
  name: string;
  syntax: string;
  text: string;
  readOnly?: boolean;
}

export class FileEditor {
  readonly root: HTMLElement;
  private tabs: HTMLElement;
  private gutter: HTMLElement;
  private area: HTMLTextAreaElement;
  private shade: HTMLElement;
  private message: HTMLElement;
  private files: EditorFile[] = [];
  private current = 0;
  private errorAt?: { file: string; line?: number };
  private warnings: Array<{ file: string; line: number; message: string }> = [];
  onChange?: () => void;

  constructor(root: HTMLElement) {
    this.root = root;
    root.classList.add("editor");
    root.innerHTML = `
      <div class="tabs" role="tablist" aria-label="Scenario files"></div>
      <div class="edit-body">
        <div class="gutter" aria-hidden="true"></div>
        <div class="text-wrap">
          <div class="shade" aria-hidden="true"></div>
          <textarea spellcheck="false" autocomplete="off" autocapitalize="off" wrap="off"></textarea>
        </div>
      </div>
      <div class="edit-msg" role="status" aria-live="polite"></div>`;
    this.tabs = root.querySelector(".tabs")!;
    this.gutter = root.querySelector(".gutter")!;
    this.area = root.querySelector("textarea")!;
    this.shade = root.querySelector(".shade")!;
    this.message = root.querySelector(".edit-msg")!;
    this.area.addEventListener("input", () => {
      this.files[this.current]!.text = this.area.value;
      this.renderGutter();
      this.onChange?.();
    });
    this.area.addEventListener("scroll", () => this.syncScroll());
  }

  setFiles(files: EditorFile[]): void {
    const keep = this.files[this.current]?.name;
    this.files = files.map((f) => ({ ...f }));
    const idx = this.files.findIndex((f) => f.name === keep);
    this.current = idx >= 0 ? idx : 0;
    this.errorAt = undefined;
    this.warnings = [];
    this.message.textContent = "";
    this.message.className = "edit-msg";
    this.renderTabs();
    this.show();
  }

  /** Mark the lines that warnings name (until the next run or error). */
  setWarnings(ws: Array<{ file: string; line: number; message: string }>): void {
    this.warnings = ws.filter((w) => this.files.some((f) => f.name === w.file));
    this.renderGutter();
    if (!this.errorAt && this.message.className !== "edit-msg error") {
      this.message.textContent = this.warnings.map((w) => w.message).join("\n");
      this.message.className = this.warnings.length ? "edit-msg warn" : "edit-msg";
    }
  }

  /** the file in the tab shown, as it stands */
  currentFile(): EditorFile | undefined {
    const f = this.files[this.current];
    return f ? { ...f } : undefined;
  }

  /** Replace one file's text (an opened file) and show its tab; false when there is no such tab. */
  setText(name: string, text: string): boolean {
    const idx = this.files.findIndex((f) => f.name === name);
    if (idx < 0) return false;
    this.files[idx]!.text = text;
    this.current = idx;
    this.errorAt = undefined;
    this.renderTabs();
    this.show();
    this.onChange?.();
    return true;
  }

  texts(): Record<string, string> {
    return Object.fromEntries(this.files.map((f) => [f.name, f.text]));
  }

  /** Show an error; `file` not among the tabs -> message only. */
  showError(message: string, file?: string, line?: number): void {
    const idx = this.files.findIndex((f) => f.name === file);
    this.errorAt = idx >= 0 ? { file: file!, line } : undefined;
    if (idx >= 0 && idx !== this.current) {
      this.current = idx;
      this.renderTabs();
      this.show();
    } else {
      this.renderGutter();
    }
    this.message.textContent = message;
    this.message.className = "edit-msg error";
    if (this.errorAt?.line) {
      const lh = this.lineHeight();
      const top = (this.errorAt.line - 1) * lh;
      if (top < this.area.scrollTop || top > this.area.scrollTop + this.area.clientHeight - lh) this.area.scrollTop = Math.max(0, top - 2 * lh);
      this.syncScroll();
    }
  }

  clearError(): void {
    this.errorAt = undefined;
    this.warnings = [];
    this.message.textContent = "";
    this.message.className = "edit-msg";
    this.renderGutter();
  }

  focus(): void {
    this.area.focus();
  }

  get textarea(): HTMLTextAreaElement {
    return this.area;
  }

  private renderTabs(): void {
    this.tabs.innerHTML = "";
    this.files.forEach((f, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.role = "tab";
      b.id = `tab-${f.name.replace(/\W/g, "-")}`;
      b.setAttribute("aria-selected", String(i === this.current));
      b.tabIndex = i === this.current ? 0 : -1;
      b.textContent = f.name;
      b.title = f.syntax;
      b.addEventListener("click", () => this.select(i));
      b.addEventListener("keydown", (e) => {
        if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
          e.preventDefault();
          const n = (i + (e.key === "ArrowRight" ? 1 : this.files.length - 1)) % this.files.length;
          this.select(n);
          (this.tabs.children[n] as HTMLElement).focus();
        }
      });
      this.tabs.appendChild(b);
    });
  }

  private select(i: number): void {
    this.current = i;
    this.renderTabs();
    this.show();
  }

  private show(): void {
    const f = this.files[this.current];
    this.area.value = f?.text ?? "";
    this.area.readOnly = !!f?.readOnly;
    this.area.setAttribute("aria-label", f ? `${f.name} (${f.syntax})${f.readOnly ? ", read-only" : ""}` : "no file");
    this.area.scrollTop = 0;
    this.renderGutter();
  }

  private lineHeight(): number {
    return parseFloat(getComputedStyle(this.area).lineHeight) || 18;
  }

  private renderGutter(): void {
    const n = this.area.value.split("\n").length;
    const name = this.files[this.current]?.name;
    const err = this.errorAt && this.errorAt.file === name ? this.errorAt.line : undefined;
    const warn = new Set(this.warnings.filter((w) => w.file === name).map((w) => w.line));
    let html = "";
    for (let i = 1; i <= n; i++) html += `<div${i === err ? ' class="err"' : warn.has(i) ? ' class="warn"' : ""}>${i}</div>`;
    this.gutter.innerHTML = html;
    if (err) {
      this.shade.style.display = "block";
      this.shade.style.top = `${(err - 1) * this.lineHeight()}px`;
    } else {
      this.shade.style.display = "none";
    }
    this.syncScroll();
  }

  private syncScroll(): void {
    this.gutter.scrollTop = this.area.scrollTop;
    this.shade.style.transform = `translateY(${-this.area.scrollTop}px)`;
  }
}
