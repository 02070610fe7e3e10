// Progress of a folder import: one line redrawn in place on a terminal, plain lines elsewhere
// (one per phase and one every few seconds), or nothing.

export type Phase = 'scan' | 'hash' | 'check' | 'upload' | 'import';

export interface ProgressState {
  phase: Phase;
  files: number;
  imageBytes: number;
  hashedFiles: number;
  hashedBytes: number;
  uploadFiles: number;
  uploadBytes: number;
  uploadedFiles: number;
  uploadedBytes: number;
  taskDone: number;
  taskTotal: number;
  taskStatus: string;
}

export interface Progress {
  readonly state: ProgressState;
  phase(phase: Phase, message: string): void;
  /** Something changed in the state; the reporter decides whether to show it. */
  update(): void;
  note(message: string): void;
  /** Leaves the terminal line clean. */
  stop(): void;
}

export const newState = (): ProgressState => ({
  phase: 'scan',
  files: 0,
  imageBytes: 0,
  hashedFiles: 0,
  hashedBytes: 0,
  uploadFiles: 0,
  uploadBytes: 0,
  uploadedFiles: 0,
  uploadedBytes: 0,
  taskDone: 0,
  taskTotal: 0,
  taskStatus: '',
});

const count = (n: number) => n.toLocaleString('en-US');

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** done/total of the current phase, its rate and time left, as words. */
function describe(s: ProgressState, elapsedSeconds: number): { done: number; total: number; text: string } {
  const rate = (done: number) => (elapsedSeconds > 0.2 ? done / elapsedSeconds : 0);
  const left = (done: number, total: number) => {
    const r = rate(done);
    return r > 0 ? `, ${duration((total - done) / r)} left` : '';
  };
  switch (s.phase) {
    case 'hash':
      return {
        done: s.hashedBytes,
        total: s.imageBytes,
        text: `hashed ${count(s.hashedFiles)}/${count(s.files)} images (${bytes(s.hashedBytes)}/${bytes(s.imageBytes)}), ${bytes(rate(s.hashedBytes))}/s${left(s.hashedBytes, s.imageBytes)}`,
      };
    case 'upload':
      return {
        done: s.uploadedBytes,
        total: s.uploadBytes,
        text:
          `uploaded ${count(s.uploadedFiles)}/${count(s.uploadFiles)} files (${bytes(s.uploadedBytes)}/${bytes(s.uploadBytes)}), ${bytes(rate(s.uploadedBytes))}/s` +
          (s.hashedFiles < s.files ? `, hashed ${count(s.hashedFiles)}/${count(s.files)} images` : left(s.uploadedBytes, s.uploadBytes)),
      };
    case 'import':
      return {
        done: s.taskDone,
        total: s.taskTotal,
        text: `task ${s.taskStatus || 'queued'}: ${count(s.taskDone)}/${count(s.taskTotal)} images, ${rate(s.taskDone).toFixed(0)}/s${left(s.taskDone, s.taskTotal)}`,
      };
    default:
      return { done: 0, total: 0, text: s.phase === 'check' ? 'asking the server which images it already has' : 'reading the folder' };
  }
}

function bar(done: number, total: number, width = 20): string {
  const filled = total > 0 ? Math.min(width, Math.round((done / total) * width)) : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

class Reporter implements Progress {
  readonly state = newState();
  private phaseStarted = Date.now();
  private lastDraw = 0;
  private shownPhase: Phase = 'scan';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly mode: 'tty' | 'lines' | 'quiet',
    private readonly everyMs: number,
  ) {}

  phase(phase: Phase, message: string): void {
    this.clearLine();
    this.state.phase = phase;
    this.shownPhase = phase;
    this.phaseStarted = Date.now();
    this.lastDraw = 0;
    if (this.mode !== 'quiet') this.out.write(`${message}\n`);
    if (this.mode === 'tty' && !this.timer) {
      // Redraws even when nothing reports, so the rate and time left stay current.
      this.timer = setInterval(() => this.draw(), 250);
      this.timer.unref();
    }
  }

  update(): void {
    const now = Date.now();
    if (this.state.phase !== this.shownPhase) {
      // The work moved on to the next phase by itself (hashing runs into uploading).
      this.shownPhase = this.state.phase;
      this.phaseStarted = now;
      this.lastDraw = 0;
    }
    if (this.mode === 'tty' && now - this.lastDraw >= 100) this.draw();
    // Plain lines: the first sign of progress in a phase, then one every few seconds.
    if (this.mode === 'lines' && (this.lastDraw === 0 || now - this.lastDraw >= this.everyMs)) {
      this.lastDraw = now;
      this.out.write(`${describe(this.state, (now - this.phaseStarted) / 1000).text}\n`);
    }
  }

  note(message: string): void {
    if (this.mode === 'quiet') return;
    this.clearLine();
    this.out.write(`${message}\n`);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clearLine();
  }

  private draw(): void {
    if (this.mode !== 'tty' || this.state.phase === 'scan' || this.state.phase === 'check') return;
    this.lastDraw = Date.now();
    const { done, total, text } = describe(this.state, (this.lastDraw - this.phaseStarted) / 1000);
    const columns = (this.out as NodeJS.WriteStream).columns ?? 100;
    this.out.write(`\r\x1b[2K${`${bar(done, total)} ${text}`.slice(0, columns - 1)}`);
  }

  private clearLine(): void {
    if (this.mode === 'tty') this.out.write('\r\x1b[2K');
  }
}

/** A terminal gets the redrawn line, anything else plain lines; `quiet` shows nothing. */
export function createProgress(out: NodeJS.WritableStream & { isTTY?: boolean }, options: { quiet?: boolean; everyMs?: number } = {}): Progress {
  const mode = options.quiet ? 'quiet' : out.isTTY ? 'tty' : 'lines';
  return new Reporter(out, mode, options.everyMs ?? 5_000);
}
